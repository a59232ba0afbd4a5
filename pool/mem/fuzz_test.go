package mem

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/url"
	"testing"

	"github.com/kvctl/kvctl/pool"
	"github.com/zeebo/xxh3"
)

func FuzzParseURL(f *testing.F) {
	for _, seed := range []string{
		"mem://", "mem://?capacity=64GiB&segments=4", "mem://?snapshot=/tmp/x&eviction=manual",
		"mem://?watermark=0.9&eviction_ratio=0.05&lease_ttl=10s", "mem://?capacity=1.5GiB&arena=1MiB",
		"mem://?segments=4096&capacity=1TiB", "mem://?metadata_only=1&evict_soft_pinned=0",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		opts, err := ParseURL(u)
		if err != nil {
			if !errors.Is(err, pool.ErrBadURL) {
				t.Fatalf("ParseURL(%q) = %v, want an error wrapping ErrBadURL", raw, err)
			}
			return
		}
		if _, err := opts.withDefaults(); err != nil {
			t.Fatalf("ParseURL(%q) accepted options that do not validate: %v", raw, err)
		}
	})
}

// fuzzOpts is the geometry every fuzzed snapshot is loaded into.
var fuzzOpts = Options{Capacity: 256 << 10, Segments: 2, ArenaSize: 32 << 10, Eviction: EvictManual}

func FuzzSnapshot(f *testing.F) {
	for _, metadataOnly := range []bool{false, true} {
		o := fuzzOpts
		o.MetadataOnly = metadataOnly
		f.Add(encodeSeed(f, o, 0), metadataOnly, false)
		f.Add(encodeSeed(f, o, 5), metadataOnly, true)
	}
	f.Fuzz(func(t *testing.T, data []byte, metadataOnly, fixChecksum bool) {
		o := fuzzOpts
		o.MetadataOnly = metadataOnly
		if fixChecksum && len(data) >= 8 {
			// Let mutations get past the checksum to the placement checks.
			body := data[:len(data)-8]
			data = binary.LittleEndian.AppendUint64(body[:len(body):len(body)], xxh3.Hash(body))
		}
		s, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.decode(bytes.NewReader(data)); err != nil {
			return
		}
		checkInvariants(t, s)
		var again bytes.Buffer
		if err := s.encode(&again); err != nil {
			t.Fatalf("encode after a successful decode = %v", err)
		}
		r, _ := New(o)
		defer r.Close()
		if err := r.decode(&again); err != nil {
			t.Fatalf("decode(encode(decode(data))) = %v", err)
		}
	})
}

// encodeSeed is the snapshot of a store in opts holding n small objects,
// some grouped and pinned.
func encodeSeed(f *testing.F, opts Options, n int) []byte {
	s, err := New(opts)
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	for i, k := range keysN("seed/", n) {
		it := pool.PutItem{Key: k, Value: bytes.Repeat([]byte{byte(i)}, 10+i*100), Options: pool.PutOptions{HardPin: i == 1, GroupID: "g"}}
		if i == 2 {
			it.Options.SoftPin = pool.SoftPinEnable
		}
		res := make([]pool.Code, 1)
		s.Put(f.Context(), []pool.PutItem{it}, res)
	}
	var buf bytes.Buffer
	if err := s.encode(&buf); err != nil {
		f.Fatal(err)
	}
	return buf.Bytes()
}
