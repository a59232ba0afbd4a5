package mooncakestore

import (
	"context"
	"fmt"
	"syscall"
)

// staging is a fixed set of buffers registered with the client
// (mooncake_store_register_buffer), mmap'd outside the Go heap, that
// values travel through. A value larger than one buffer travels through a
// buffer of its own, registered for the call.
type staging struct {
	c         client
	slotBytes int64
	free      chan []byte
	all       [][]byte
}

// stagingSlots is how many calls can transfer at once.
const stagingSlots = 4

// align is the alignment of every value in a staging buffer.
const align = 64

func newStaging(c client, slotBytes int64) (*staging, error) {
	s := &staging{c: c, slotBytes: slotBytes, free: make(chan []byte, stagingSlots)}
	for range stagingSlots {
		b, err := mapRegistered(c, slotBytes)
		if err != nil {
			s.close()
			return nil, err
		}
		s.all = append(s.all, b)
		s.free <- b
	}
	return s, nil
}

// mapRegistered maps n bytes and registers them with the client.
func mapRegistered(c client, n int64) ([]byte, error) {
	b, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("mapping %d bytes of staging: %w", n, err)
	}
	if rc := c.registerBuffer(b); rc != 0 {
		syscall.Munmap(b)
		return nil, fmt.Errorf("registering %d bytes of staging: mooncake_store_register_buffer: %v", n, codeOf(int64(rc)))
	}
	return b, nil
}

func unmapRegistered(c client, b []byte) {
	c.unregisterBuffer(b)
	syscall.Munmap(b)
}

// acquire returns a buffer of at least n bytes and the function that gives
// it back.
func (s *staging) acquire(ctx context.Context, n int64) ([]byte, func(), error) {
	if n > s.slotBytes {
		b, err := mapRegistered(s.c, n)
		if err != nil {
			return nil, nil, err
		}
		return b, func() { unmapRegistered(s.c, b) }, nil
	}
	select {
	case b := <-s.free:
		return b, func() { s.free <- b }, nil
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// close unregisters and unmaps every buffer; none may be in use.
func (s *staging) close() {
	for _, b := range s.all {
		unmapRegistered(s.c, b)
	}
	s.all = nil
}

// alignUp rounds n up to align.
func alignUp(n int64) int64 { return (n + align - 1) / align * align }

// runs splits sizes into runs [start, end) whose aligned total fits in
// limit; a size over limit is a run of its own.
func runs(sizes []int64, limit int64) [][2]int {
	var out [][2]int
	start, total := 0, int64(0)
	for i, n := range sizes {
		n = alignUp(n)
		if i > start && total+n > limit {
			out = append(out, [2]int{start, i})
			start, total = i, 0
		}
		total += n
	}
	if start < len(sizes) {
		out = append(out, [2]int{start, len(sizes)})
	}
	return out
}

// carve cuts buf into one region per size, each aligned.
func carve(buf []byte, sizes []int64) [][]byte {
	out := make([][]byte, len(sizes))
	off := int64(0)
	for i, n := range sizes {
		out[i] = buf[off : off+n : off+n]
		off += alignUp(n)
	}
	return out
}

// total is the aligned total of sizes.
func total(sizes []int64) int64 {
	var t int64
	for _, n := range sizes {
		t += alignUp(n)
	}
	return t
}
