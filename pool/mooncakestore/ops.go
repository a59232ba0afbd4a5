package mooncakestore

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/kvctl/kvctl/pool"
)

// validKey reports whether store_c.h can carry key: a C string, so not
// empty and without NUL bytes.
func validKey(k string) bool { return k != "" && !strings.ContainsRune(k, 0) }

// Exist probes keys without leasing them through the admin API when the
// store has one; without one it is ExistLeasing (batch_is_exist leases
// every present key), as the package comment and Stat say.
func (s *Store) Exist(ctx context.Context, keys []string, status []int) error {
	if s.admin != nil {
		return s.admin.Exist(ctx, keys, status)
	}
	return s.ExistLeasing(ctx, keys, status)
}

// ExistLeasing probes keys with mooncake_store_batch_is_exist (store_c.h),
// which is the master's BatchExistKey: every present key is leased.
func (s *Store) ExistLeasing(ctx context.Context, keys []string, status []int) error {
	if len(status) != len(keys) {
		return fmt.Errorf("mooncake store exist: %d statuses for %d keys", len(status), len(keys))
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mooncake store exist: %w", err)
	}
	idx := make([]int, 0, len(keys))
	for i, k := range keys {
		if validKey(k) {
			idx = append(idx, i)
		} else {
			status[i] = int(pool.InvalidParams)
		}
	}
	res, err := s.isExist(pick(keys, idx))
	if err != nil {
		return err
	}
	for j, i := range idx {
		status[i] = int(res[j])
	}
	return nil
}

// isExist is one batch_is_exist call: 1, 0 or a negative code per key.
func (s *Store) isExist(keys []string) ([]int32, error) {
	res := make([]int32, len(keys))
	if len(keys) == 0 {
		return res, nil
	}
	if rc := s.c.batchIsExist(keys, res); rc != 0 {
		return nil, callError("exist", len(keys), int64(rc))
	}
	return res, nil
}

// Get reads values with mooncake_store_batch_get_into (store_c.h): straight
// into bufs[i] where it lies in memory registered with RegisterBuffer,
// else into staging and copied into bufs[i].
func (s *Store) Get(ctx context.Context, keys []string, bufs [][]byte, n []int64) error {
	if len(bufs) != len(keys) || len(n) != len(keys) {
		return fmt.Errorf("mooncake store get: %d buffers and %d sizes for %d keys", len(bufs), len(n), len(keys))
	}
	idx, carrier := carriers(keys, bufs, n)
	direct, idx := s.splitRegistered(idx, func(i int) []byte { return bufs[i] })
	if err := s.getDirect(ctx, keys, bufs, n, direct); err != nil {
		return err
	}
	sizes := make([]int64, len(idx))
	for j, i := range idx {
		sizes[j] = int64(len(bufs[i]))
	}
	for _, r := range runs(sizes, s.staging.slotBytes) {
		if err := s.getRun(ctx, keys, bufs, n, idx[r[0]:r[1]], sizes[r[0]:r[1]]); err != nil {
			return err
		}
	}
	fanOut(keys, bufs, n, carrier)
	return ctx.Err()
}

// carriers picks, for each valid key, the one request that reads it: the
// one with the largest buffer. The client fills one buffer per distinct
// key of a batch (seen against mooncake_store_batch_get_into at Mooncake
// 3b5a5941: of two buffers for one key in one call, one stayed zero), so a
// key is read once and copied to its other buffers (fanOut). idx lists the
// carriers in the order their keys first appear; invalid keys get
// INVALID_PARAMS in n.
func carriers(keys []string, bufs [][]byte, n []int64) (idx []int, carrier map[string]int) {
	carrier = make(map[string]int, len(keys))
	for i, k := range keys {
		if !validKey(k) {
			n[i] = int64(pool.InvalidParams)
			continue
		}
		c, ok := carrier[k]
		if !ok {
			idx = append(idx, i)
		}
		if !ok || len(bufs[i]) > len(bufs[c]) {
			carrier[k] = i
		}
	}
	for j, i := range idx {
		idx[j] = carrier[keys[i]]
	}
	return idx, carrier
}

// fanOut gives every other request of a key its carrier's answer: the
// value where it fits the request's buffer, INVALID_PARAMS where it does
// not, the carrier's error code otherwise.
func fanOut(keys []string, bufs [][]byte, n []int64, carrier map[string]int) {
	for i, k := range keys {
		c, ok := carrier[k]
		if !ok || c == i {
			continue
		}
		switch got := n[c]; {
		case got < 0:
			n[i] = got
		case got > int64(len(bufs[i])):
			n[i] = int64(pool.InvalidParams)
		default:
			n[i] = int64(copy(bufs[i], bufs[c][:got]))
		}
	}
}

// splitRegistered splits idx into the indices whose buffer (of(i)) lies in
// memory registered with RegisterBuffer and the others, each in order.
func (s *Store) splitRegistered(idx []int, of func(i int) []byte) (in, out []int) {
	for _, i := range idx {
		if s.regs.holds(of(i)) {
			in = append(in, i)
		} else {
			out = append(out, i)
		}
	}
	return in, out
}

// getDirect reads the keys idx names straight into their registered
// buffers, in one call.
func (s *Store) getDirect(ctx context.Context, keys []string, bufs [][]byte, n []int64, idx []int) error {
	if len(idx) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mooncake store get: %w", err)
	}
	dst := make([][]byte, len(idx))
	for j, i := range idx {
		dst[j] = bufs[i]
	}
	res := make([]int64, len(idx))
	if rc := s.c.batchGetInto(pick(keys, idx), dst, res); rc != 0 {
		return callError("get", len(idx), int64(rc))
	}
	for j, i := range idx {
		n[i] = res[j]
	}
	return nil
}

// getRun reads the keys idx names through one staging buffer.
func (s *Store) getRun(ctx context.Context, keys []string, bufs [][]byte, n []int64, idx []int, sizes []int64) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mooncake store get: %w", err)
	}
	buf, release, err := s.staging.acquire(ctx, total(sizes))
	if err != nil {
		return fmt.Errorf("mooncake store get: %w", err)
	}
	defer release()
	regions := carve(buf, sizes)
	res := make([]int64, len(idx))
	if rc := s.c.batchGetInto(pick(keys, idx), regions, res); rc != 0 {
		return callError("get", len(idx), int64(rc))
	}
	for j, i := range idx {
		n[i] = res[j]
		if res[j] >= 0 {
			copy(bufs[i], regions[j][:min(res[j], int64(len(regions[j])))])
		}
	}
	return nil
}

// Remove removes keys with mooncake_store_remove (store_c.h has no batch
// remove): one call per distinct key, removeWorkers calls at a time, since
// each is a round trip to the master. A key given again in the batch
// answers as a second remove after the first would: OBJECT_NOT_FOUND when
// the first removed it, else the first's answer.
func (s *Store) Remove(ctx context.Context, keys []string, force bool, results []pool.Code) error {
	if len(results) != len(keys) {
		return fmt.Errorf("mooncake store remove: %d results for %d keys", len(results), len(keys))
	}
	first := make(map[string]int, len(keys))
	idx := make([]int, 0, len(keys))
	for i, k := range keys {
		if _, seen := first[k]; !seen {
			first[k] = i
			idx = append(idx, i)
		}
	}
	var wg sync.WaitGroup
	for w := range min(removeWorkers, len(idx)) {
		wg.Go(func() {
			for j := w; j < len(idx) && ctx.Err() == nil; j += removeWorkers {
				i := idx[j]
				results[i] = pool.InvalidParams
				if validKey(keys[i]) {
					results[i] = codeOf(int64(s.c.remove(keys[i], force)))
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mooncake store remove: %w", err)
	}
	for i, k := range keys {
		if f := first[k]; f != i {
			results[i] = results[f]
			if results[f] == pool.OK {
				results[i] = pool.ObjectNotFound
			}
		}
	}
	return nil
}

// removeWorkers is how many remove calls one Remove makes at a time.
const removeWorkers = 8

// RemoveAll is mooncake_store_remove_all (store_c.h), the master's
// RemoveAll: every object of the pool, not only kvctl's.
func (s *Store) RemoveAll(ctx context.Context, force bool) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("mooncake store remove all: %w", err)
	}
	n := s.c.removeAll(force)
	if n < 0 {
		return 0, &pool.Error{Op: "remove all", Code: codeOf(n)}
	}
	return n, nil
}

// Sizes asks each key's size with mooncake_store_get_size (store_c.h),
// which leases the keys it finds.
func (s *Store) Sizes(ctx context.Context, keys []string, sizes []int64) error {
	if len(sizes) != len(keys) {
		return fmt.Errorf("mooncake store sizes: %d sizes for %d keys", len(sizes), len(keys))
	}
	for i, k := range keys {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("mooncake store sizes: %w", err)
		}
		sizes[i] = int64(pool.InvalidParams)
		if validKey(k) {
			sizes[i] = s.c.getSize(k)
		}
	}
	return nil
}

// pick is keys[i] for each i in idx.
func pick(keys []string, idx []int) []string {
	out := make([]string, len(idx))
	for j, i := range idx {
		out[j] = keys[i]
	}
	return out
}
