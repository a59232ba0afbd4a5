package transfer

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
	"github.com/zeebo/xxh3"
)

// benchChunk is the number of pages per pool call when seeding, clearing
// and verifying.
const benchChunk = 256

// fillPage writes page i's deterministic bytes (a splitmix64 stream seeded
// by the key and the run's seed) into buf.
func (b *benchRun) fillPage(i int, buf []byte) {
	x := xxh3.HashString(b.key(i)) ^ b.o.Seed
	var w [8]byte
	for off := 0; off < len(buf); off += 8 {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		binary.LittleEndian.PutUint64(w[:], z^(z>>31))
		copy(buf[off:], w[:])
	}
}

// chunks calls fn for each run of at most benchChunk page indexes.
func (b *benchRun) chunks(fn func(start, end int) error) error {
	for start := 0; start < b.o.Pages; start += benchChunk {
		if err := fn(start, min(start+benchChunk, b.o.Pages)); err != nil {
			return err
		}
	}
	return nil
}

// seedPool puts every page; a key already present keeps its bytes, which
// are the same since the key names the seed.
func (b *benchRun) seedPool(ctx context.Context) error {
	return b.putPages(ctx, "seeding the pool", b.fillPage)
}

// warmPool, for a pool whose memory lives in this process (ArenaStore),
// puts every page's key with zero bytes before a save clears them: the
// pool's arenas are then allocated and touched, so that first-touch page
// faults are not timed (a pool that has run a while has its memory in
// use).
func (b *benchRun) warmPool(ctx context.Context) error {
	if _, ok := b.o.Pool.(ArenaStore); !ok {
		return nil
	}
	return b.putPages(ctx, "warming the pool", func(int, []byte) {})
}

// putPages puts every page with the bytes fill writes, reusing one chunk
// of buffers.
func (b *benchRun) putPages(ctx context.Context, what string, fill func(i int, buf []byte)) error {
	vals := make([][]byte, min(benchChunk, b.o.Pages))
	for i := range vals {
		vals[i] = make([]byte, b.o.PageBytes)
	}
	items := make([]pool.PutItem, len(vals))
	codes := make([]pool.Code, len(vals))
	return b.chunks(func(start, end int) error {
		n := end - start
		for i := range n {
			fill(start+i, vals[i])
			items[i] = pool.PutItem{Key: b.key(start + i), Value: vals[i]}
		}
		if err := b.o.Pool.Put(ctx, items[:n], codes[:n]); err != nil {
			return fmt.Errorf("bench: %s: %w", what, err)
		}
		for i, c := range codes[:n] {
			if c != pool.OK && c != pool.ObjectAlreadyExists {
				return fmt.Errorf("bench: %s: put %q: %s", what, items[i].Key, c)
			}
		}
		return nil
	})
}

// clearKeys removes the pages' keys so that a save stores them all.
func (b *benchRun) clearKeys(ctx context.Context) error {
	return b.chunks(func(start, end int) error {
		keys := make([]string, end-start)
		for i := range keys {
			keys[i] = b.key(start + i)
		}
		codes := make([]pool.Code, len(keys))
		if err := b.o.Pool.Remove(ctx, keys, true, codes); err != nil {
			return fmt.Errorf("bench: clearing the keys to save: %w", err)
		}
		for i, c := range codes {
			if c != pool.OK && c != pool.ObjectNotFound {
				return fmt.Errorf("bench: clearing the keys to save: remove %q: %s", keys[i], c)
			}
		}
		return nil
	})
}

// removeKeys removes the pages' keys once the run ended, also when it
// was interrupted: for a while, on a context that is not cancelled.
func (b *benchRun) removeKeys(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeKeysTimeout)
	defer cancel()
	if err := b.clearKeys(ctx); err != nil {
		return fmt.Errorf("removing the run's keys (prefix %q): %w", b.o.KeyPrefix, err)
	}
	return nil
}

// removeKeysTimeout bounds removeKeys.
const removeKeysTimeout = 30 * time.Second

// fillGPU writes every page's bytes to the GPU and returns an event that
// completes once they are there.
func (b *benchRun) fillGPU() (cuda.Event, error) {
	p := b.pools[0]
	bufs := p.NewRegionBufs()
	page := make([]byte, b.o.PageBytes)
	for i := range b.o.Pages {
		b.fillPage(i, page)
		scatterPage(p.group, bufs, i, page)
	}
	dev := b.o.Device
	s, err := dev.NewStream()
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer s.Destroy()
	ready, err := dev.NewEvent()
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	err = p.WriteRegions(s, bufs)
	if err == nil {
		err = ready.Record(s)
	}
	if err == nil {
		err = s.Synchronize()
	}
	if err != nil {
		ready.Destroy()
		return nil, fmt.Errorf("bench: filling the GPU pages: %w", err)
	}
	return ready, nil
}

// touchGPU zeroes the GPU pages of an emulated device, whose memory is Go
// memory that would otherwise take its first-touch page faults in the
// timed copies (a GPU's memory is backed at allocation).
func (b *benchRun) touchGPU() error {
	if !b.o.Device.Info().Emulated {
		return nil
	}
	return b.zeroGPU()
}

// zeroGPU writes zeros over every GPU page.
func (b *benchRun) zeroGPU() error {
	s, err := b.o.Device.NewStream()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer s.Destroy()
	p := b.pools[0]
	err = p.WriteRegions(s, p.NewRegionBufs())
	if err == nil {
		err = s.Synchronize()
	}
	if err != nil {
		return fmt.Errorf("bench: zeroing the GPU pages: %w", err)
	}
	return nil
}

// scatterPage copies a page's concatenated regions into region-major
// buffers; gatherPage is the reverse.
func scatterPage(g LayerGroup, bufs [][]byte, i int, page []byte) {
	off := int64(0)
	for r, rb := range g.RegionBytes {
		copy(bufs[r][int64(i)*rb:], page[off:off+rb])
		off += rb
	}
}

func gatherPage(g LayerGroup, bufs [][]byte, i int, page []byte) {
	off := int64(0)
	for r, rb := range g.RegionBytes {
		copy(page[off:off+rb], bufs[r][int64(i)*rb:])
		off += rb
	}
}

// verifier compares pages' xxh3-128 with the expected bytes' and keeps the
// first few differences.
type verifier struct {
	b        *benchRun
	want     []byte
	bad      int
	firstBad []int
}

func (v *verifier) check(i int, got []byte) {
	if v.want == nil {
		v.want = make([]byte, v.b.o.PageBytes)
	}
	v.b.fillPage(i, v.want)
	if xxh3.Hash128(got) != xxh3.Hash128(v.want) {
		v.bad++
		if len(v.firstBad) < 3 {
			v.firstBad = append(v.firstBad, i)
		}
	}
}

func (v *verifier) verdict() string {
	if v.bad == 0 {
		return "ok"
	}
	return fmt.Sprintf("%d of %d pages differ (xxh3-128), first pages %v", v.bad, v.b.o.Pages, v.firstBad)
}

// verifyGPU reads every GPU page back and checks it.
func (b *benchRun) verifyGPU() error {
	p := b.pools[0]
	bufs := p.NewRegionBufs()
	s, err := b.o.Device.NewStream()
	if err != nil {
		return fmt.Errorf("bench verify: %w", err)
	}
	defer s.Destroy()
	err = p.ReadRegions(s, bufs)
	if err == nil {
		err = s.Synchronize()
	}
	if err != nil {
		return fmt.Errorf("bench verify: reading the GPU pages: %w", err)
	}
	v := &verifier{b: b}
	page := make([]byte, b.o.PageBytes)
	for i := range b.o.Pages {
		gatherPage(p.group, bufs, i, page)
		v.check(i, page)
	}
	b.res.Verify = v.verdict()
	return nil
}

// verifyPool gets every saved page back from the pool and checks it.
func (b *benchRun) verifyPool(ctx context.Context) error {
	v := &verifier{b: b}
	err := b.chunks(func(start, end int) error {
		keys := make([]string, end-start)
		bufs := make([][]byte, len(keys))
		n := make([]int64, len(keys))
		for i := range keys {
			keys[i], bufs[i] = b.key(start+i), make([]byte, b.o.PageBytes)
		}
		if err := b.o.Pool.Get(ctx, keys, bufs, n); err != nil {
			return fmt.Errorf("bench verify: %w", err)
		}
		for i := range keys {
			if n[i] != b.o.PageBytes {
				clear(bufs[i])
			}
			v.check(start+i, bufs[i])
		}
		return nil
	})
	b.res.Verify = v.verdict()
	return err
}

// baseline times one contiguous pinned copy of all the pages' bytes in the
// benchmark's direction, twice, keeping the faster.
func (b *benchRun) baseline() error {
	dev := b.o.Device
	p := b.pools[0]
	host, err := dev.AllocHost(p.Bytes())
	if err != nil {
		return fmt.Errorf("bench baseline: %w", err)
	}
	defer host.Close()
	s, err := dev.NewStream()
	if err != nil {
		return fmt.Errorf("bench baseline: %w", err)
	}
	defer s.Destroy()
	kind, c := cuda.HostToDevice, cuda.Copy{Dst: p.Base(), Src: host.Ptr(), Bytes: p.Bytes()}
	if b.o.Direction == DirectionSave {
		kind, c = cuda.DeviceToHost, cuda.Copy{Dst: host.Ptr(), Src: p.Base(), Bytes: p.Bytes()}
	}
	best := 0.0
	for range 2 {
		start := time.Now()
		err := dev.Memcpy(s, kind, []cuda.Copy{c})
		if err == nil {
			err = s.Synchronize()
		}
		if err != nil {
			return fmt.Errorf("bench baseline: %w", err)
		}
		if t := time.Since(start).Seconds(); best == 0 || t < best {
			best = t
		}
	}
	b.res.BaselineSeconds = best
	return nil
}
