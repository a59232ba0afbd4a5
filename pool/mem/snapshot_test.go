package mem

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
	"github.com/zeebo/xxh3"
)

// snapshotWorkload fills a store with plain, pinned and grouped objects,
// some removed and some leased.
func snapshotWorkload(t *testing.T, s *Store, clock *fakeClock) {
	t.Helper()
	for i, k := range keysN("obj/", 40) {
		opts := pool.PutOptions{HardPin: i%7 == 0}
		if i%5 == 0 {
			opts.SoftPin = pool.SoftPinEnable
		}
		if i%3 == 0 {
			opts.GroupID = "g" + k[len(k)-1:]
		}
		it := pool.PutItem{Key: k, Value: bytes.Repeat([]byte{byte(i)}, 100+i*37), Options: opts}
		if s.opts.MetadataOnly {
			it = pool.PutItem{Key: k, Size: int64(100 + i*37), Options: opts}
		}
		mustPut(t, s, it)
		clock.Advance(time.Second)
	}
	removeKeys(t, s, true, keysN("obj/", 40)[10:15]...)
	s.ExistLeasing(context.Background(), keysN("obj/", 3), make([]int, 3))
	put(t, s, pool.PutItem{Key: "obj/0000", Value: []byte("again")}) // counted as existing
}

func TestSnapshotRoundTrip(t *testing.T) {
	for _, metadataOnly := range []bool{false, true} {
		t.Run(map[bool]string{false: "bytes", true: "metadata"}[metadataOnly], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pool.snap")
			opts := Options{Capacity: 1 << 20, Segments: 3, ArenaSize: 64 << 10, MetadataOnly: metadataOnly, SnapshotPath: path}
			clock := newFakeClock()
			opts.Now = clock.Now
			s, _ := newTestStore(t, opts)
			snapshotWorkload(t, s, clock)
			want := stat(t, s)
			if err := s.Close(); err != nil {
				t.Fatalf("Close() = %v", err)
			}
			r, _ := newTestStore(t, opts)
			if diff := cmp.Diff(want, stat(t, r)); diff != "" {
				t.Errorf("Stat() after reload mismatch (-saved +loaded):\n%s", diff)
			}
			checkInvariants(t, r)
			compareObjects(t, s, r)
			if got := removeKeys(t, r, false, "obj/0001")[0]; got != pool.ObjectHasLease {
				t.Errorf("Remove(obj/0001) leased before the save = %v, want OBJECT_HAS_LEASE", got)
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 {
				t.Errorf("snapshot directory holds %d files, want 1 (no temporary files left)", len(entries))
			}
		})
	}
}

// compareObjects checks that b holds a's objects with the same metadata,
// placement and bytes.
func compareObjects(t *testing.T, a, b *Store) {
	t.Helper()
	type view struct {
		Size, Off, Lease, SoftPin, Published int64
		Seg                                  int
		HardPin                              bool
		Group                                string
		Bytes                                []byte
	}
	views := func(s *Store) map[string]view {
		out := map[string]view{}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.forEachObject(func(o *object) {
			k := s.keys.key(o.key)
			v := view{o.size, o.off, o.lease.Load(), o.softPinUntil(), o.publishedAt, int(o.seg), o.hardPinned(), "", nil}
			if g := o.group(); g != nil {
				v.Group = g.id
			}
			if !s.opts.MetadataOnly {
				v.Bytes = s.segs[o.seg].bytes(o.off, o.size)
			}
			out[k] = v
		})
		return out
	}
	if diff := cmp.Diff(views(a), views(b)); diff != "" {
		t.Errorf("objects after reload mismatch (-saved +loaded):\n%s", diff)
	}
}

func TestSnapshotMissingFileStartsEmpty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "absent.snap")
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1, SnapshotPath: path})
	if st := stat(t, s); st.Keys != 0 {
		t.Errorf("Stat().Keys of a store with a missing snapshot = %d, want 0", st.Keys)
	}
	mustPut(t, s, pool.PutItem{Key: "k", Value: []byte("v")})
	if err := s.Snapshot(context.Background()); err != nil {
		t.Fatalf("Snapshot() = %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("snapshot file after Snapshot(): %v", err)
	}
}

func TestSnapshotWithoutPath(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1})
	if err := s.Snapshot(context.Background()); err == nil || !strings.Contains(err.Error(), "snapshot=PATH") {
		t.Errorf("Snapshot() without a path = %v, want an error naming snapshot=PATH", err)
	}
}

func TestSnapshotCorrupt(t *testing.T) {
	opts := Options{Capacity: 1 << 20, Segments: 2, ArenaSize: 64 << 10}
	good := encodeWorkload(t, opts)
	tests := []struct {
		name    string
		data    []byte
		opts    Options
		wantErr string
	}{
		{"flipped byte", flip(good, len(good)/2), opts, "checksum mismatch"},
		{"truncated", good[:len(good)-20], opts, "truncated"},
		{"checksum only missing", good[:len(good)-8], opts, "truncated"},
		{"trailing data", append(append([]byte{}, good...), 0), opts, "after the checksum"},
		{"empty file", nil, opts, "truncated"},
		{"bad magic", append([]byte("NOTASNAP"), good[8:]...), opts, "bad magic"},
		{"future version", append(append([]byte{}, good[:8]...), append([]byte{3, 0, 0, 0}, good[12:]...)...), opts, "version 3 is not supported"},
		{"other capacity", good, Options{Capacity: 2 << 20, Segments: 2, ArenaSize: 64 << 10}, "capacity=1048576 segments=2"},
		{"other mode", good, Options{Capacity: 1 << 20, Segments: 2, ArenaSize: 64 << 10, MetadataOnly: true}, "metadata_only=false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.snap")
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			o := tt.opts
			o.SnapshotPath, o.Eviction = path, EvictManual
			s, err := New(o)
			if err == nil {
				s.Close()
				t.Fatalf("New(snapshot %s) = nil error, want one containing %q", tt.name, tt.wantErr)
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("New(snapshot %s) = %q, want it to name %q and contain %q", tt.name, err, path, tt.wantErr)
			}
		})
	}
}

// encodeWorkload returns the snapshot bytes of a store after the workload.
func encodeWorkload(t *testing.T, opts Options) []byte {
	t.Helper()
	clock := newFakeClock()
	opts.Now = clock.Now
	s, _ := newTestStore(t, opts)
	snapshotWorkload(t, s, clock)
	var buf bytes.Buffer
	if err := s.encode(&buf); err != nil {
		t.Fatalf("encode = %v", err)
	}
	return buf.Bytes()
}

func flip(b []byte, i int) []byte {
	out := append([]byte{}, b...)
	out[i] ^= 0x40
	return out
}

func TestSnapshotSaveErrorNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no-such-dir", "pool.snap")
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1, SnapshotPath: path})
	if err := s.Snapshot(context.Background()); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Snapshot() into a missing directory = %v, want an error naming %q", err, path)
	}
}

// TestSnapshotVersion1 checks that a version 1 file, which counted each
// segment's arenas of the arena size instead of listing their ends, still
// loads, in both modes.
func TestSnapshotVersion1(t *testing.T) {
	for _, metadataOnly := range []bool{false, true} {
		t.Run(map[bool]string{false: "bytes", true: "metadata"}[metadataOnly], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pool.snap")
			opts := Options{Capacity: 1 << 20, Segments: 3, ArenaSize: 64 << 10, MetadataOnly: metadataOnly, SnapshotPath: path}
			clock := newFakeClock()
			opts.Now = clock.Now
			s, _ := newTestStore(t, opts)
			snapshotWorkload(t, s, clock)
			want := stat(t, s)
			if err := s.Close(); err != nil {
				t.Fatalf("Close() = %v", err)
			}
			v2, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, asVersion1(t, v2, opts.Segments), 0o644); err != nil {
				t.Fatal(err)
			}
			r, _ := newTestStore(t, opts)
			if diff := cmp.Diff(want, stat(t, r)); diff != "" {
				t.Errorf("Stat() after loading version 1 (-saved +loaded):\n%s", diff)
			}
			checkInvariants(t, r)
			compareObjects(t, s, r)
		})
	}
}

// asVersion1 rewrites a version 2 snapshot of a store whose arenas all
// have the arena size as version 1 wrote it.
func asVersion1(t *testing.T, v2 []byte, segments int) []byte {
	t.Helper()
	const header = 88 // magic to the counters
	out := append([]byte{}, v2[:header]...)
	binary.LittleEndian.PutUint32(out[8:], 1)
	rest := v2[header:]
	for range segments {
		n := binary.LittleEndian.Uint32(rest)
		out = binary.LittleEndian.AppendUint32(out, n)
		rest = rest[4+8*n:]
	}
	out = append(out, rest[:len(rest)-8]...)
	return binary.LittleEndian.AppendUint64(out, xxh3.Hash(out))
}
