package redis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/rueidis"

	"github.com/kvctl/kvctl/pool"
)

// Soft pin limits, as the Mooncake master applies them.
const (
	// DefaultSoftPinTTL is the soft pin TTL of SoftPinEnable without a TTL.
	DefaultSoftPinTTL = 30 * time.Minute
	// MaxSoftPinTTL is the longest soft pin TTL a put may ask for.
	MaxSoftPinTTL = 24 * time.Hour
	// farExpiry is the expiry pins=volatile gives every key that is not
	// hard-pinned: far enough never to matter, present so that a volatile-*
	// maxmemory policy may evict the key.
	farExpiry = 10 * 365 * 24 * time.Hour
)

// batch is the commands of one pipeline and, for each, the index of the key
// (or item) it serves.
type batch struct {
	idx  []int
	cmds []rueidis.Completed
}

func (b *batch) add(i int, cmd rueidis.Completed) {
	b.idx = append(b.idx, i)
	b.cmds = append(b.cmds, cmd)
}

// send runs the batch as one pipeline and calls handle for every result;
// handle returns the key's failure, if any. The batch fails as a whole when
// the context ended or every command failed.
func (s *Store) send(ctx context.Context, op string, b *batch, handle func(i int, r rueidis.RedisResult) *failure) error {
	if len(b.cmds) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redis %s: %w", op, err)
	}
	results := s.client.DoMulti(ctx, b.cmds...)
	failed := 0
	var first error
	for j, r := range results {
		if f := handle(b.idx[j], r); f != nil {
			failed++
			if first == nil {
				first = f.err
			}
		}
	}
	err := batchError(ctx, op, len(results), failed, first)
	s.down.Store(errors.Is(err, pool.ErrUnreachable))
	return err
}

// checkLen refuses a call whose result slice does not match its input.
func checkLen(op string, inputs, outputs int) error {
	if inputs != outputs {
		return &pool.Error{Code: pool.InvalidParams, Op: op,
			Err: fmt.Errorf("%d keys but %d result slots", inputs, outputs)}
	}
	return nil
}

// Exist writes 1 for each present key and 0 for each absent one (EXISTS,
// pipelined); a failed probe is a negative code. It grants no lease: Redis
// has none.
func (s *Store) Exist(ctx context.Context, keys []string, status []int) error {
	if err := checkLen("exist", len(keys), len(status)); err != nil {
		return err
	}
	b := batch{idx: make([]int, 0, len(keys)), cmds: make([]rueidis.Completed, 0, len(keys))}
	for i, k := range keys {
		b.add(i, s.client.B().Exists().Key(storedKey(k)).Build())
	}
	return s.send(ctx, "exist", &b, func(i int, r rueidis.RedisResult) *failure {
		n, err := r.AsInt64()
		if err != nil {
			f := s.classify("exist", keys[i], err)
			status[i] = int(f.code)
			return &f
		}
		status[i] = int(min(n, 1))
		return nil
	})
}

// Put stores each item whose key is absent (SET NX, pipelined): OK when
// stored, ObjectAlreadyExists when present (the stored value is kept),
// NoAvailableHandle when the server is out of memory, InvalidParams for an
// item Mooncake would refuse (a soft pin TTL above 24 h or below zero) or
// that has no bytes to store (a nil Value with a Size: Redis keeps bytes,
// not accounting).
func (s *Store) Put(ctx context.Context, items []pool.PutItem, results []pool.Code) error {
	if err := checkLen("put", len(items), len(results)); err != nil {
		return err
	}
	b := batch{idx: make([]int, 0, len(items)), cmds: make([]rueidis.Completed, 0, len(items))}
	for i, it := range items {
		if !validPut(it) {
			results[i] = pool.InvalidParams
			continue
		}
		b.add(i, s.setCommand(it))
	}
	return s.send(ctx, "put", &b, func(i int, r rueidis.RedisResult) *failure {
		err := r.Error()
		switch {
		case err == nil:
			results[i] = pool.OK
		case rueidis.IsRedisNil(err):
			results[i] = pool.ObjectAlreadyExists
		default:
			f := s.classify("put", items[i].Key, err)
			results[i] = f.code
			return &f
		}
		return nil
	})
}

// validPut reports whether an item is one Mooncake and Redis accept.
func validPut(it pool.PutItem) bool {
	if it.Value == nil && it.Size != 0 {
		return false
	}
	o := it.Options
	if o.SoftPin == pool.SoftPinEnable && (o.SoftPinTTL < 0 || o.SoftPinTTL > MaxSoftPinTTL) {
		return false
	}
	return o.SoftPin >= pool.SoftPinPreserve && o.SoftPin <= pool.SoftPinDisable
}

// setCommand is SET key value NX, with the expiry pins=volatile asks for.
func (s *Store) setCommand(it pool.PutItem) rueidis.Completed {
	nx := s.client.B().Set().Key(storedKey(it.Key)).Value(rueidis.BinaryString(it.Value)).Nx()
	ttl := s.expiry(it.Options)
	if ttl == 0 {
		return nx.Build()
	}
	return nx.PxMilliseconds(ttl.Milliseconds()).Build()
}

// expiry is the Redis expiry a put gets: none under pins=none and for a
// hard-pinned key; under pins=volatile farExpiry, plus the soft pin TTL for
// a soft-pinned key, so that volatile-ttl evicts it after the unpinned keys
// published up to that TTL later.
func (s *Store) expiry(o pool.PutOptions) time.Duration {
	if s.pins != pinsVolatile || o.HardPin {
		return 0
	}
	if o.SoftPin != pool.SoftPinEnable {
		return farExpiry
	}
	if o.SoftPinTTL == 0 {
		return farExpiry + DefaultSoftPinTTL
	}
	return farExpiry + o.SoftPinTTL
}

// Get copies each key's value into bufs[i] (GET, pipelined) and writes its
// size into n[i]; ObjectNotFound when absent, InvalidParams when the value
// is larger than bufs[i].
func (s *Store) Get(ctx context.Context, keys []string, bufs [][]byte, n []int64) error {
	if err := checkLen("get", len(keys), len(n)); err != nil {
		return err
	}
	if err := checkLen("get", len(keys), len(bufs)); err != nil {
		return err
	}
	b := batch{idx: make([]int, 0, len(keys)), cmds: make([]rueidis.Completed, 0, len(keys))}
	for i, k := range keys {
		b.add(i, s.client.B().Get().Key(storedKey(k)).Build())
	}
	return s.send(ctx, "get", &b, func(i int, r rueidis.RedisResult) *failure {
		v, err := r.ToString()
		switch {
		case rueidis.IsRedisNil(err):
			n[i] = int64(pool.ObjectNotFound)
		case err != nil:
			f := s.classify("get", keys[i], err)
			n[i] = int64(f.code)
			return &f
		case len(v) > len(bufs[i]):
			n[i] = int64(pool.InvalidParams)
		default:
			n[i] = int64(copy(bufs[i], v))
		}
		return nil
	})
}

// Remove deletes each key (DEL, pipelined): OK, or ObjectNotFound when it
// was absent. force has no effect: Redis keeps no leases, so no removal is
// ever refused with ObjectHasLease.
func (s *Store) Remove(ctx context.Context, keys []string, force bool, results []pool.Code) error {
	if err := checkLen("remove", len(keys), len(results)); err != nil {
		return err
	}
	b := batch{idx: make([]int, 0, len(keys)), cmds: make([]rueidis.Completed, 0, len(keys))}
	for i, k := range keys {
		b.add(i, s.client.B().Del().Key(storedKey(k)).Build())
	}
	return s.send(ctx, "remove", &b, func(i int, r rueidis.RedisResult) *failure {
		deleted, err := r.AsInt64()
		switch {
		case err != nil:
			f := s.classify("remove", keys[i], err)
			results[i] = f.code
			return &f
		case deleted == 0:
			results[i] = pool.ObjectNotFound
		default:
			results[i] = pool.OK
		}
		return nil
	})
}
