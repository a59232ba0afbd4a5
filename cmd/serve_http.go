package cmd

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mooncake"
	"github.com/kvctl/kvctl/server"
)

// defaultLiveCapacity sizes the embedded pool of the HTTP front, which
// cannot know its traffic up front; arenas are allocated as it fills.
const defaultLiveCapacity = 4 << 30

// runServeHTTP serves the OpenAI-compatible front until the context ends
// (Ctrl-C or SIGTERM: a graceful shutdown).
func runServeHTTP(ctx context.Context, ios *IOStreams, g *globalOptions, o *serveOptions, cfg engine.Config) error {
	st, err := o.openLivePool(ctx, &cfg)
	if err != nil {
		return err
	}
	if cfg.GPU.Device != nil {
		defer cfg.GPU.Device.Close()
	}
	if cfg.Disagg.On() {
		return runDisaggHTTP(ctx, ios, g, o, cfg, st)
	}
	return server.Run(ctx, server.Options{
		Addr: o.Addr, Engine: cfg, Pool: st, Master: mooncake.NewMasterHandler(st), RealTime: o.RealTime,
		APIKey:     o.apiKey(ios),
		Role:       o.Disagg.ServerRole,
		KVTransfer: o.kvTransfer(cfg),
		ModelName:  cfg.Keys.Namespace.ModelKey,
		Logf: func(format string, args ...any) {
			if !g.Quiet {
				fmt.Fprintf(ios.ErrOut, format+"\n", args...)
			}
		},
		Ready: func(addr string) {
			fmt.Fprintf(ios.ErrOut, "kvctl serve: listening on http://%s%s (OpenAI /v1/completions and /v1/chat/completions, /metrics, Mooncake admin paths)\n", addr, o.Disagg.roleNote())
		},
	})
}

// openLivePool opens the HTTP front's pool, --pool or an embedded one, on
// a fresh clock that it sets as cfg's.
func (o *serveOptions) openLivePool(ctx context.Context, cfg *engine.Config) (pool.Store, error) {
	cfg.Clock = engine.NewClock()
	if o.Pool.URL != "" {
		cfg.RemovePages = o.removesPages()
		return openServePool(ctx, o.Pool.URL, cfg.Clock)
	}
	return openEmbeddedPool(cfg.Clock, defaultLiveCapacity, o.PoolSeed)
}

// apiKey is --api-key, else $KVCTL_API_KEY; "" leaves the front open.
func (o *serveOptions) apiKey(ios *IOStreams) string {
	if o.APIKey != "" {
		return o.APIKey
	}
	return ios.Getenv("KVCTL_API_KEY")
}

// kvTransfer is the KV transfer of a --server-role server, its faults
// seeded by --fault-seed.
func (o *serveOptions) kvTransfer(cfg engine.Config) server.KVTransferOptions {
	x := o.KVTransfer
	x.Seed = cfg.Faults.Seed
	return x
}
