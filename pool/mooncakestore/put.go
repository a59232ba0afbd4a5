package mooncakestore

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/pool"
)

// Put stores the items whose keys are absent. Mooncake's client reports
// the put of a present key as success, so Put asks batch_is_exist first
// (leasing the present keys, as TensorRT-LLM's connector does before a
// save) and puts only the absent ones with mooncake_store_batch_put_from
// (store_c.h): straight from values in memory registered with
// RegisterBuffer, the others from staging. Puts of one key through this Store are
// serialised, so of racing puts exactly one reports OK. An empty value is
// INVALID_PARAMS: Mooncake stores none.
func (s *Store) Put(ctx context.Context, items []pool.PutItem, results []pool.Code) error {
	if len(results) != len(items) {
		return fmt.Errorf("mooncake store put: %d results for %d items", len(results), len(items))
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mooncake store put: %w", err)
	}
	idx, dups := s.triage(items, results)
	if len(idx) == 0 {
		return nil
	}
	keys := make([]string, len(idx))
	for j, i := range idx {
		keys[j] = items[i].Key
	}
	defer s.locks.lock(keys)()
	present, err := s.isExist(keys)
	if err != nil {
		return err
	}
	absent := idx[:0:0]
	for j, i := range idx {
		switch {
		case present[j] == 1:
			results[i] = pool.ObjectAlreadyExists
		case present[j] < 0:
			results[i] = codeOf(int64(present[j]))
		default:
			absent = append(absent, i)
		}
	}
	if err := s.putAbsent(ctx, items, results, absent); err != nil {
		return err
	}
	for i, first := range dups {
		results[i] = results[first]
		if results[first] == pool.OK {
			results[i] = pool.ObjectAlreadyExists
		}
	}
	return nil
}

// triage returns the items to put (the first of each key, with a value
// store_c.h can carry) and, for each later item of a key, the first's
// index. Refused items get INVALID_PARAMS.
func (s *Store) triage(items []pool.PutItem, results []pool.Code) (idx []int, dups map[int]int) {
	first := make(map[string]int, len(items))
	dups = map[int]int{}
	for i, it := range items {
		if !validKey(it.Key) || len(it.Value) == 0 {
			results[i] = pool.InvalidParams
			continue
		}
		if j, seen := first[it.Key]; seen {
			dups[i] = j
			continue
		}
		first[it.Key] = i
		idx = append(idx, i)
	}
	return idx, dups
}

// putAbsent puts the items idx names, in groups that share a replicate
// config: values in memory registered with RegisterBuffer straight from
// it, the others through staging.
func (s *Store) putAbsent(ctx context.Context, items []pool.PutItem, results []pool.Code, idx []int) error {
	for len(idx) > 0 {
		cfg := replicateConfigOf(items[idx[0]].Options)
		same := 1
		for same < len(idx) && replicateConfigOf(items[idx[same]].Options) == cfg {
			same++
		}
		direct, staged := s.splitRegistered(idx[:same], func(i int) []byte { return items[i].Value })
		if err := s.putDirect(ctx, items, results, direct, cfg); err != nil {
			return err
		}
		if err := s.putStaged(ctx, items, results, staged, cfg); err != nil {
			return err
		}
		idx = idx[same:]
	}
	return nil
}

// putStaged puts the items idx names through staging, in runs that fit
// in one staging buffer.
func (s *Store) putStaged(ctx context.Context, items []pool.PutItem, results []pool.Code, idx []int, cfg replicateConfig) error {
	sizes := make([]int64, len(idx))
	for j, i := range idx {
		sizes[j] = int64(len(items[i].Value))
	}
	for _, r := range runs(sizes, s.staging.slotBytes) {
		if err := s.putRun(ctx, items, results, idx[r[0]:r[1]], sizes[r[0]:r[1]], cfg); err != nil {
			return err
		}
	}
	return nil
}

// putDirect puts the items idx names straight from their registered
// values, in one call.
func (s *Store) putDirect(ctx context.Context, items []pool.PutItem, results []pool.Code, idx []int, cfg replicateConfig) error {
	if len(idx) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mooncake store put: %w", err)
	}
	keys, values := make([]string, len(idx)), make([][]byte, len(idx))
	for j, i := range idx {
		keys[j], values[j] = items[i].Key, items[i].Value
	}
	res := make([]int32, len(idx))
	if rc := s.c.batchPutFrom(keys, values, cfg, res); rc != 0 {
		return callError("put", len(idx), int64(rc))
	}
	for j, i := range idx {
		results[i] = codeOf(int64(res[j]))
	}
	return nil
}

// putRun copies the items idx names into one staging buffer and puts them.
func (s *Store) putRun(ctx context.Context, items []pool.PutItem, results []pool.Code, idx []int, sizes []int64, cfg replicateConfig) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mooncake store put: %w", err)
	}
	buf, release, err := s.staging.acquire(ctx, total(sizes))
	if err != nil {
		return fmt.Errorf("mooncake store put: %w", err)
	}
	defer release()
	regions := carve(buf, sizes)
	keys := make([]string, len(idx))
	for j, i := range idx {
		keys[j] = items[i].Key
		copy(regions[j], items[i].Value)
	}
	res := make([]int32, len(idx))
	if rc := s.c.batchPutFrom(keys, regions, cfg, res); rc != 0 {
		return callError("put", len(idx), int64(rc))
	}
	for j, i := range idx {
		results[i] = codeOf(int64(res[j]))
	}
	return nil
}

// replicateConfigOf maps a put's options onto store_c.h's replicate
// config: one replica, soft pin when SoftPinEnable, hard pin. The C API
// has no soft-pin TTL and no eviction group; they are not sent.
func replicateConfigOf(o pool.PutOptions) replicateConfig {
	return replicateConfig{
		replicaNum:  1,
		withSoftPin: cBool(o.SoftPin == pool.SoftPinEnable),
		withHardPin: cBool(o.HardPin),
	}
}
