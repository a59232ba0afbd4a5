package cuda

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// batchCounter is a device that records the copies of each MemcpyBatch
// call.
type batchCounter struct {
	Device
	calls []int
}

func (b *batchCounter) MemcpyBatch(s Stream, kind CopyKind, copies []Copy) error {
	b.calls = append(b.calls, len(copies))
	return b.Device.MemcpyBatch(s, kind, copies)
}

func TestBatchModeCutsCalls(t *testing.T) {
	tests := []struct {
		copies int
		want   []int
	}{
		{copies: 1, want: []int{1}},
		{copies: maxBatchCopies, want: []int{maxBatchCopies}},
		{copies: 2*maxBatchCopies + 3, want: []int{maxBatchCopies, maxBatchCopies, 3}},
	}
	for _, tt := range tests {
		host := newHostDevice("")
		d := &batchCounter{Device: host}
		cp, err := NewCopier(d, ModeBatch)
		if err != nil {
			t.Fatalf("NewCopier(batch) error = %v", err)
		}
		const size = 512
		src, err := d.AllocHost(int64(tt.copies) * size)
		if err != nil {
			t.Fatal(err)
		}
		for i := range src.Bytes() {
			src.Bytes()[i] = byte(i * 7)
		}
		dst, err := d.Alloc(int64(tt.copies) * size)
		if err != nil {
			t.Fatal(err)
		}
		var copies []Copy
		for i := range tt.copies { // reversed on the device
			copies = append(copies, Copy{Dst: dst.Add(int64(tt.copies-1-i) * size), Src: src.Ptr().Add(int64(i) * size), Bytes: size})
		}
		s := mustStream(t, d)
		if err := cp.Copy(s, HostToDevice, copies); err != nil {
			t.Fatalf("Copy(%d copies) error = %v", tt.copies, err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, d.calls); diff != "" {
			t.Errorf("Copy(%d copies) made calls of (-want +got):\n%s", tt.copies, diff)
		}
		got := make([]byte, size)
		for i := range tt.copies {
			if err := d.CopyDtoH(s, got, dst.Add(int64(tt.copies-1-i)*size)); err != nil {
				t.Fatal(err)
			}
			if err := s.Synchronize(); err != nil {
				t.Fatal(err)
			}
			if want := src.Bytes()[i*size : (i+1)*size]; !bytes.Equal(got, want) {
				t.Fatalf("Copy(%d copies): region %d differs", tt.copies, i)
			}
		}
		cp.Close()
		host.Close()
	}
}
