package pooltest

import (
	"context"
	"testing"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
)

// TestRegisteringCounts puts and gets values inside and outside a
// registered buffer and checks the counts and registrations.
func TestRegisteringCounts(t *testing.T) {
	p, err := mem.New(mem.Options{Capacity: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r := NewRegistering(p)
	buf := make([]byte, 256)
	done, err := r.RegisterBuffer(buf)
	if err != nil {
		t.Fatalf("RegisterBuffer error = %v", err)
	}
	if _, err := r.RegisterBuffer(buf); err == nil {
		t.Errorf("RegisterBuffer of a registered buffer: no error, want one")
	}
	ctx := context.Background()
	codes := make([]pool.Code, 2)
	if err := r.Put(ctx, []pool.PutItem{{Key: "a", Value: buf[:64]}, {Key: "b", Value: make([]byte, 64)}}, codes); err != nil {
		t.Fatal(err)
	}
	if err := r.Get(ctx, []string{"a"}, [][]byte{buf[128:192]}, make([]int64, 1)); err != nil {
		t.Fatal(err)
	}
	if in, out := r.Counts(); in != 2 || out != 1 {
		t.Errorf("Counts() = %d, %d, want 2 inside (a put, a get), 1 outside", in, out)
	}
	if err := done(); err != nil {
		t.Fatal(err)
	}
	if total, left := r.Registrations(); total != 1 || left != 0 {
		t.Errorf("Registrations() = %d, %d, want 1, 0", total, left)
	}
}
