package cmd

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
)

// getCounter records the buffer size of every Get; it hides the store's
// optional abilities.
type getCounter struct {
	pool.Store
	gets []int
}

func (g *getCounter) Get(ctx context.Context, keys []string, bufs [][]byte, n []int64) error {
	g.gets = append(g.gets, len(bufs[0]))
	return g.Store.Get(ctx, keys, bufs, n)
}

// sizedGetCounter is a getCounter that can tell sizes.
type sizedGetCounter struct {
	*getCounter
	pool.Sizer
}

// TestGetValue reads a value of 2 MiB + 1 once at its size from a store
// that can tell it (pool.Sizer), and in growing buffers from one that
// cannot.
func TestGetValue(t *testing.T) {
	const size = 2<<20 + 1
	ctx := context.Background()
	bytesPool, err := mem.New(mem.Options{Capacity: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer bytesPool.Close()
	metaPool, err := mem.New(mem.Options{Capacity: 64 << 20, MetadataOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer metaPool.Close()
	val := bytes.Repeat([]byte("kv"), size/2+1)[:size]
	res := make([]pool.Code, 1)
	if err := bytesPool.Put(ctx, []pool.PutItem{{Key: "k", Value: val}}, res); err != nil || res[0] != pool.OK {
		t.Fatalf("Put(k) = %v, %v", res[0], err)
	}
	if err := metaPool.Put(ctx, []pool.PutItem{{Key: "k", Size: size}}, res); err != nil || res[0] != pool.OK {
		t.Fatalf("Put(k, metadata only) = %v, %v", res[0], err)
	}
	tests := []struct {
		name     string
		st       pool.Store
		sized    bool
		key      string
		wantCode pool.Code // OK: the value is read
		wantGets []int
	}{
		{"sized", bytesPool, true, "k", pool.OK, []int{size}},
		{"growing", bytesPool, false, "k", pool.OK, []int{1 << 20, 4 << 20}},
		{"sized absent", bytesPool, true, "absent", pool.ObjectNotFound, nil},
		{"growing absent", bytesPool, false, "absent", pool.ObjectNotFound, []int{1 << 20}},
		{"sized metadata only", metaPool, true, "k", pool.InvalidParams, []int{size}},
	}
	for _, tt := range tests {
		g := &getCounter{Store: tt.st}
		var st pool.Store = g
		if tt.sized {
			st = sizedGetCounter{g, tt.st.(pool.Sizer)}
		}
		got, err := getValue(ctx, st, tt.key)
		if code := pool.CodeOf(err); code != tt.wantCode || (err == nil && !bytes.Equal(got, val)) {
			t.Errorf("getValue(%s, %q) = %d bytes, %v, want code %v and the value", tt.name, tt.key, len(got), err, tt.wantCode)
		}
		if diff := cmp.Diff(tt.wantGets, g.gets); diff != "" {
			t.Errorf("getValue(%s, %q) Get buffer sizes mismatch (-want +got):\n%s", tt.name, tt.key, diff)
		}
	}
}

// TestPoolGetTerminal refuses to write a binary value to a terminal and
// writes text, or anything when stdout is not a terminal.
func TestPoolGetTerminal(t *testing.T) {
	tests := []struct {
		name     string
		value    []byte
		terminal bool
		wantErr  bool
	}{
		{"binary to terminal", []byte{0x00, 0x1b, 0xff, 'k'}, true, true},
		{"escape to terminal", []byte("a\x1b[2Jb"), true, true},
		{"text to terminal", []byte("a value\twith tabs\n"), true, false},
		{"binary piped", []byte{0x00, 0x1b, 0xff, 'k'}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := t.TempDir() + "/pool.snap"
			url := "mem://?capacity=1MiB&snapshot=" + snap
			ios, out, _ := NewTestIOStreams("")
			st, err := pool.Open(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			res := make([]pool.Code, 1)
			if err := st.Put(context.Background(), []pool.PutItem{{Key: "k", Value: tt.value}}, res); err != nil || res[0] != pool.OK {
				t.Fatalf("Put = %v, %v", err, res[0])
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			ios.OutTTY = tt.terminal
			err = runPoolGet(context.Background(), ios, &globalOptions{}, &poolGetOptions{Pool: poolFlag{URL: url}, Key: "k"})
			if gotErr := err != nil; gotErr != tt.wantErr {
				t.Fatalf("runPoolGet(%q, terminal %t) = %v, want error %t", tt.value, tt.terminal, err, tt.wantErr)
			}
			want := tt.value
			if tt.wantErr {
				want = nil
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("runPoolGet(%q, terminal %t) wrote %q, want %q", tt.value, tt.terminal, out.Bytes(), want)
			}
		})
	}
}
