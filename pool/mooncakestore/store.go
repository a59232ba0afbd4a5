package mooncakestore

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/kvctl/kvctl/pool"
)

// Store is a pool kept in a Mooncake Store, reached through Mooncake's C
// client.
type Store struct {
	cfg     Config
	c       client
	staging *staging
	locks   *keyLocks
	regs    *registered
	// admin is the master's admin HTTP API (pool.Open of mooncake://Admin),
	// or nil.
	admin     pool.Store
	closeOnce sync.Once
	closeErr  error
}

var (
	_ pool.Store             = (*Store)(nil)
	_ pool.LeasingExister    = (*Store)(nil)
	_ pool.AllRemover        = (*Store)(nil)
	_ pool.Sizer             = (*Store)(nil)
	_ pool.BufferRegistrar   = (*Store)(nil)
	_ pool.TransportReporter = (*Store)(nil)
)

// Open loads the library cfg names, creates a client and sets it up
// against the master (mooncake_store_create, mooncake_store_setup),
// mounting GlobalSegmentSize bytes when it is above zero, then checks it
// (mooncake_store_health_check). A library that cannot be loaded gives an
// error wrapping ErrNoLibrary; a client that cannot be set up, or a master
// that does not answer, one wrapping pool.ErrUnreachable that names the
// master.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("%w: %w", pool.ErrBadURL, err)
	}
	if cfg.LocalHostname == "" {
		host, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("mooncake store: local_hostname not set and the machine has no hostname: %w", err)
		}
		cfg.LocalHostname = host
	}
	lib, err := loadLibrary(cfg.Library)
	if err != nil {
		return nil, err
	}
	c, err := setUp(ctx, lib, cfg)
	if err != nil {
		return nil, err
	}
	return newStore(ctx, cfg, c)
}

// newStore wraps a set-up client: staging, and the admin API when cfg
// names one. On error it destroys the client.
func newStore(ctx context.Context, cfg Config, c client) (*Store, error) {
	s := &Store{cfg: cfg, c: c, locks: newKeyLocks(), regs: newRegistered()}
	st, err := newStaging(c, cfg.StagingBytes)
	if err != nil {
		c.destroy()
		return nil, fmt.Errorf("mooncake store at %s: %w", cfg.MasterServerAddress, err)
	}
	s.staging = st
	if cfg.Admin != "" {
		if s.admin, err = pool.Open(ctx, "mooncake://"+cfg.Admin); err != nil {
			s.Close()
			return nil, fmt.Errorf("mooncake store at %s: opening its admin API: %w", cfg.MasterServerAddress, err)
		}
	}
	return s, nil
}

// setUp creates a client and sets it up. mooncake_store_setup cannot be
// interrupted: when ctx ends first, setUp returns and the client is
// destroyed once setup returns.
func setUp(ctx context.Context, lib *library, cfg Config) (client, error) {
	type result struct {
		c  *libClient
		rc int32
	}
	done := make(chan result, 1)
	go func() {
		h := lib.create()
		if h == 0 {
			done <- result{rc: internalError}
			return
		}
		c := &libClient{lib: lib, handle: h}
		rc := lib.setup(h, cfg.LocalHostname, cfg.MetadataServer, uint64(cfg.GlobalSegmentSize), uint64(cfg.LocalBufferSize),
			cfg.Protocol, cfg.DeviceName, cfg.MasterServerAddress)
		if rc == 0 {
			rc = c.healthCheck()
		}
		done <- result{c, rc}
	}()
	select {
	case r := <-done:
		return checkSetUp(r.c, r.rc, cfg)
	case <-ctx.Done():
		go func() {
			if r := <-done; r.c != nil {
				r.c.destroy()
			}
		}()
		return nil, fmt.Errorf("setting up the mooncake store client for %s: %w", cfg.MasterServerAddress, ctx.Err())
	}
}

func checkSetUp(c *libClient, rc int32, cfg Config) (client, error) {
	if rc == 0 {
		return c, nil
	}
	if c != nil {
		c.destroy()
	}
	return nil, fmt.Errorf("%w: mooncake store master %s (metadata %s, protocol %s): client setup or health check: %s",
		pool.ErrUnreachable, cfg.MasterServerAddress, cfg.MetadataServer, cfg.Protocol, healthName(rc))
}

// Close unregisters the staging, forgets the buffers callers registered
// (their unregister then does nothing), closes the admin API and destroys the
// client (mooncake_store_destroy), which unmounts its segment.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if s.admin != nil {
			s.closeErr = s.admin.Close()
		}
		s.staging.close()
		s.regs.close()
		s.c.destroy()
	})
	return s.closeErr
}

// Stat is the admin API's Stat when the store has an admin address, with
// this backend's name and address; without one it only checks the client
// (mooncake_store_health_check), and its counts are zero.
func (s *Store) Stat(ctx context.Context) (pool.Stat, error) {
	if err := ctx.Err(); err != nil {
		return pool.Stat{}, fmt.Errorf("mooncake store stat: %w", err)
	}
	st := pool.Stat{}
	if s.admin != nil {
		var err error
		if st, err = s.admin.Stat(ctx); err != nil {
			return pool.Stat{}, fmt.Errorf("mooncake store stat: %w", err)
		}
	} else {
		if rc := s.c.healthCheck(); rc != 0 {
			return pool.Stat{}, fmt.Errorf("%w: mooncake store %s: health check: %s", pool.ErrUnreachable, s.cfg.MasterServerAddress, healthName(rc))
		}
		st.Warnings = append(st.Warnings, "no admin address (admin=HOST:PORT): counts are unknown and exist probes lease the keys they find")
	}
	st.Backend, st.Address, st.ReadOnly = "mooncake-store", s.cfg.MasterServerAddress, false
	t := s.Transport()
	st.Transport = &t
	return st, nil
}
