package mooncakestore

import (
	"bytes"
	"context"
	"testing"

	"github.com/kvctl/kvctl/pool"
)

// TestRegisteredBuffersSkipStaging checks that Put from and Get into
// memory registered with RegisterBuffer hand the caller's own bytes to
// the client (no staging copy), that other buffers still go through
// staging, and that after unregister the same memory goes through staging
// again.
func TestRegisteredBuffersSkipStaging(t *testing.T) {
	ctx := context.Background()
	f := newFakeClient(t)
	s := openFake(t, f)
	defer s.Close()
	mem := make([]byte, 4096)
	unregister, err := s.RegisterBuffer(mem)
	if err != nil {
		t.Fatalf("RegisterBuffer(4096 bytes) = %v, want nil", err)
	}
	copy(mem[0:100], bytes.Repeat([]byte{'a'}, 100))
	other := bytes.Repeat([]byte{'b'}, 100)
	items := []pool.PutItem{{Key: "in", Value: mem[0:100]}, {Key: "out", Value: other}}
	codes := make([]pool.Code, 2)
	if err := s.Put(ctx, items, codes); err != nil || codes[0] != pool.OK || codes[1] != pool.OK {
		t.Fatalf("Put(in, out) = %v %v, want nil [OK OK]", err, codes)
	}
	if f.transferred[0] != addr(mem) || f.transferred[1] == addr(other) {
		t.Errorf("Put transferred from %#x and %#x, want the registered value %#x in place and the other staged", f.transferred[0], f.transferred[1], addr(mem))
	}

	f.transferred = nil
	bufs := [][]byte{mem[1024:1124], make([]byte, 100)}
	n := make([]int64, 2)
	if err := s.Get(ctx, []string{"out", "in"}, bufs, n); err != nil {
		t.Fatalf("Get(out, in) = %v, want nil", err)
	}
	if !bytes.Equal(bufs[0], other) || !bytes.Equal(bufs[1], mem[0:100]) || n[0] != 100 || n[1] != 100 {
		t.Errorf("Get(out, in) = %v, values %q %q, want [100 100] and the values put", n, bufs[0][:4], bufs[1][:4])
	}
	if f.transferred[0] != addr(mem[1024:]) || f.transferred[1] == addr(bufs[1]) {
		t.Errorf("Get transferred into %#x and %#x, want the registered buffer %#x in place and the other staged", f.transferred[0], f.transferred[1], addr(mem[1024:]))
	}

	if err := unregister(); err != nil {
		t.Fatalf("unregister() = %v, want nil", err)
	}
	f.transferred = nil
	if err := s.Get(ctx, []string{"in"}, [][]byte{mem[2048:2148]}, n[:1]); err != nil || n[0] != 100 {
		t.Fatalf("Get(in) after unregister = %v %d, want nil 100", err, n[0])
	}
	if f.transferred[0] == addr(mem[2048:]) {
		t.Errorf("Get after unregister transferred into the caller's buffer %#x, want staging", f.transferred[0])
	}
}

func TestRegisterBufferRefuses(t *testing.T) {
	s := openFake(t, newFakeClient(t))
	mem := make([]byte, 64)
	if _, err := s.RegisterBuffer(nil); err == nil {
		t.Errorf("RegisterBuffer(nil) = nil, want an error")
	}
	unregister, err := s.RegisterBuffer(mem)
	if err != nil {
		t.Fatalf("RegisterBuffer(64 bytes) = %v, want nil", err)
	}
	if _, err := s.RegisterBuffer(mem); err == nil {
		t.Errorf("RegisterBuffer(64 bytes) twice = nil, want an error")
	}
	s.Close()
	if err := unregister(); err != nil {
		t.Errorf("unregister() after Close = %v, want nil", err)
	}
	if _, err := s.RegisterBuffer(mem); err == nil {
		t.Errorf("RegisterBuffer after Close = nil, want an error")
	}
}
