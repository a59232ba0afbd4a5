package redis

import (
	"context"

	"github.com/redis/rueidis"

	"github.com/kvctl/kvctl/pool"
)

// Sizes writes each key's value size in bytes into sizes (STRLEN,
// pipelined), or ObjectNotFound when the key is absent: STRLEN answers 0
// for an absent key and an empty value alike, so the keys it sizes 0 are
// probed again with Exist. It grants no lease: Redis has none.
func (s *Store) Sizes(ctx context.Context, keys []string, sizes []int64) error {
	if err := checkLen("size", len(keys), len(sizes)); err != nil {
		return err
	}
	b := batch{idx: make([]int, 0, len(keys)), cmds: make([]rueidis.Completed, 0, len(keys))}
	for i, k := range keys {
		b.add(i, s.client.B().Strlen().Key(storedKey(k)).Build())
	}
	err := s.send(ctx, "size", &b, func(i int, r rueidis.RedisResult) *failure {
		n, err := r.AsInt64()
		if err != nil {
			f := s.classify("size", keys[i], err)
			sizes[i] = int64(f.code)
			return &f
		}
		sizes[i] = n
		return nil
	})
	if err != nil {
		return err
	}
	return s.markAbsent(ctx, keys, sizes)
}

// markAbsent turns the zero sizes of absent keys into ObjectNotFound (and
// those of failed probes into the probe's code).
func (s *Store) markAbsent(ctx context.Context, keys []string, sizes []int64) error {
	var zero []string
	var at []int
	for i, n := range sizes {
		if n == 0 {
			zero, at = append(zero, keys[i]), append(at, i)
		}
	}
	if len(zero) == 0 {
		return nil
	}
	status := make([]int, len(zero))
	if err := s.Exist(ctx, zero, status); err != nil {
		return err
	}
	for j, st := range status {
		switch {
		case st == 0:
			sizes[at[j]] = int64(pool.ObjectNotFound)
		case st < 0:
			sizes[at[j]] = int64(st)
		}
	}
	return nil
}
