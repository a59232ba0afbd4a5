package mooncake

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/kvctl/kvctl/pool"
)

// Exist probes keys with GET /batch_query_keys, which grants no lease
// (Mooncake 0.3.12 and newer), never with the leasing /query_key. Keys are
// asked once each, Options.Chunk keys per request, Options.Parallel requests
// at once. Per key it writes 1 (present), 0 (OBJECT_NOT_FOUND) or a negative
// code: the code the master named (RPCFail for a name kvctl does not know or
// a key missing from the answer), or InvalidParams for a key that cannot be
// asked (empty, or containing a comma, or one the master read undecoded).
func (s *Store) Exist(ctx context.Context, keys []string, status []int) error {
	if len(status) != len(keys) {
		return fmt.Errorf("mooncake exist: %d statuses for %d keys", len(status), len(keys))
	}
	uniq, owner := askable(keys, status)
	uniqStatus := make([]int, len(uniq))
	if err := s.queryChunks(ctx, uniq, uniqStatus); err != nil {
		return err
	}
	for i, o := range owner {
		if o >= 0 {
			status[i] = uniqStatus[o]
		}
	}
	return nil
}

// askable returns the distinct keys that can be asked and, for every key,
// the index of its distinct key, or -1 after writing InvalidParams into
// status for a key that cannot be asked.
func askable(keys []string, status []int) (uniq []string, owner []int) {
	owner = make([]int, len(keys))
	seen := make(map[string]int, len(keys))
	for i, k := range keys {
		if k == "" || strings.Contains(k, ",") {
			owner[i], status[i] = -1, int(pool.InvalidParams)
			continue
		}
		o, ok := seen[k]
		if !ok {
			o = len(uniq)
			seen[k] = o
			uniq = append(uniq, k)
		}
		owner[i] = o
	}
	return uniq, owner
}

// queryChunks asks every chunk of keys, a bounded number at once, and
// returns the first failure (which cancels the chunks still running).
func (s *Store) queryChunks(ctx context.Context, keys []string, out []int) error {
	chunk := s.opts.Chunk
	if len(keys) <= chunk {
		if len(keys) == 0 {
			return nil
		}
		return s.queryChunk(ctx, keys, out)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	sem := make(chan struct{}, s.opts.Parallel)
	for lo := 0; lo < len(keys) && ctx.Err() == nil; lo += chunk {
		hi := min(lo+chunk, len(keys))
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := s.queryChunk(ctx, keys[lo:hi], out[lo:hi]); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mooncake master at %s: exist: %w", s.c.addr, err)
	}
	return nil
}

// queryChunk asks one GET /batch_query_keys.
func (s *Store) queryChunk(ctx context.Context, keys []string, out []int) error {
	const path = "/batch_query_keys"
	var q strings.Builder
	q.WriteString("keys=")
	for i, k := range keys {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteString(encodeKey(k))
	}
	body, err := s.c.get(ctx, path, q.String())
	if err != nil {
		return err
	}
	entries, err := parseBatch(body)
	if err != nil {
		return s.c.malformed(path, err)
	}
	for i, k := range keys {
		e, ok := entries[k]
		switch {
		case ok:
			out[i] = entryStatus(e)
		case hasEncoded(entries, k):
			out[i] = int(pool.InvalidParams) // the master did not decode it
		default:
			out[i] = int(pool.RPCFail)
		}
	}
	return nil
}

// hasEncoded reports whether the answer holds k under its encoded spelling,
// which a master that reads the query undecoded does.
func hasEncoded(entries map[string]batchEntry, k string) bool {
	enc := encodeKey(k)
	if enc == k {
		return false
	}
	_, ok := entries[enc]
	return ok
}

// keySafe lists the bytes, besides letters and digits, that a key keeps
// unencoded: each reads the same to a master that decodes the query and to
// one that reads it raw.
const keySafe = "-._~!$'()*:@/?"

// encodeKey percent-encodes the bytes of k outside letters, digits and
// keySafe.
func encodeKey(k string) string {
	i := 0
	for i < len(k) && safeByte(k[i]) {
		i++
	}
	if i == len(k) {
		return k
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(k) + 16)
	b.WriteString(k[:i])
	for ; i < len(k); i++ {
		c := k[i]
		if safeByte(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func safeByte(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		strings.IndexByte(keySafe, c) >= 0
}
