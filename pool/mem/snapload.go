package mem

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/zeebo/xxh3"
)

// load reads the snapshot file at path into the empty store; a missing
// file leaves it empty.
func (s *Store) load(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading snapshot %q: %w", path, err)
	}
	defer f.Close()
	if err := s.decode(bufio.NewReaderSize(f, 1<<20)); err != nil {
		return fmt.Errorf("reading snapshot %q: %w", path, err)
	}
	return nil
}

// snapReader reads little-endian fields, hashing them; the first error
// sticks and later reads return zeros.
type snapReader struct {
	r   io.Reader
	h   *xxh3.Hasher
	buf [8]byte
	err error
	// version is the file's format version, once the header is read.
	version uint32
}

func (r *snapReader) bytes(p []byte) {
	if r.err != nil {
		clear(p)
		return
	}
	if _, err := io.ReadFull(r.r, p); err != nil {
		r.err = fmt.Errorf("truncated: %w", io.ErrUnexpectedEOF)
		return
	}
	r.h.Write(p)
}

func (r *snapReader) u8() byte    { r.bytes(r.buf[:1]); return r.buf[0] }
func (r *snapReader) u32() uint32 { r.bytes(r.buf[:4]); return binary.LittleEndian.Uint32(r.buf[:4]) }
func (r *snapReader) u64() uint64 { r.bytes(r.buf[:8]); return binary.LittleEndian.Uint64(r.buf[:8]) }
func (r *snapReader) i64() int64  { return int64(r.u64()) }

// str reads a length-prefixed string of at most MaxKeyLen bytes.
func (r *snapReader) str(what string) string {
	n := r.u32()
	if r.err == nil && n > MaxKeyLen {
		r.err = fmt.Errorf("%s length %d is above %d", what, n, MaxKeyLen)
	}
	if r.err != nil {
		return ""
	}
	b := make([]byte, n)
	r.bytes(b)
	return string(b)
}

// decode reads a whole snapshot into the empty store, verifying the
// geometry, every object's placement and the checksum.
func (s *Store) decode(in io.Reader) error {
	r := &snapReader{r: in, h: xxh3.New()}
	if err := s.decodeHeader(r); err != nil {
		return err
	}
	count := r.u64()
	var objs []*object
	seen := map[string]bool{}
	groups := map[*object]string{}
	for i := uint64(0); i < count && r.err == nil; i++ {
		o, gid, err := s.decodeObject(r)
		if err != nil {
			return fmt.Errorf("object %d: %w", i, err)
		}
		if r.err == nil && seen[o.key] {
			return fmt.Errorf("object %d: duplicate key %q", i, o.key)
		}
		seen[o.key] = true
		if gid != "" {
			groups[o] = gid
		}
		objs = append(objs, o)
	}
	if r.err != nil {
		return r.err
	}
	if err := verifyChecksum(in, r.h.Sum64()); err != nil {
		return err
	}
	return s.install(objs, groups)
}

func verifyChecksum(in io.Reader, want uint64) error {
	var sum [9]byte
	n, _ := io.ReadFull(in, sum[:])
	switch {
	case n < 8:
		return fmt.Errorf("truncated: no checksum")
	case n > 8:
		return fmt.Errorf("unexpected data after the checksum")
	case binary.LittleEndian.Uint64(sum[:8]) != want:
		return fmt.Errorf("checksum mismatch: the file is corrupt")
	}
	return nil
}

// decodeHeader reads the header, checks it against the store's options and
// opens the arenas the snapshot used.
func (s *Store) decodeHeader(r *snapReader) error {
	var magic [len(snapMagic)]byte
	r.bytes(magic[:])
	if r.err == nil && string(magic[:]) != snapMagic {
		return fmt.Errorf("not a kvctl mem pool snapshot (bad magic %q)", magic[:])
	}
	r.version = r.u32()
	if r.err == nil && (r.version < 1 || r.version > snapVersion) {
		return fmt.Errorf("snapshot version %d is not supported (want 1 to %d)", r.version, snapVersion)
	}
	flags := r.u32()
	capacity, segments, arena := r.i64(), r.u32(), r.i64()
	next := r.u32()
	r.i64() // save time, informational
	c := &s.count
	c.PutsExisting.Store(r.i64())
	c.AllocationFailure.Store(r.i64())
	for _, p := range []*int64{&c.EvictionAttempts, &c.EvictedKeys, &c.EvictedBytes} {
		*p = r.i64()
	}
	if r.err != nil {
		return r.err
	}
	if flags&^snapMetadataOnly != 0 {
		return fmt.Errorf("unknown flags %#x", flags)
	}
	metadataOnly := flags&snapMetadataOnly != 0
	o := s.opts
	if capacity != o.Capacity || int(segments) != o.Segments || arena != o.ArenaSize || metadataOnly != o.MetadataOnly {
		return fmt.Errorf("saved with capacity=%d segments=%d arena=%d metadata_only=%t; the pool was opened with capacity=%d segments=%d arena=%d metadata_only=%t",
			capacity, segments, arena, metadataOnly, o.Capacity, o.Segments, o.ArenaSize, o.MetadataOnly)
	}
	if int(next) >= o.Segments {
		return fmt.Errorf("next segment %d is out of range", next)
	}
	s.nextSeg.Store(uint64(next))
	return s.decodeArenas(r)
}

// decodeArenas reads each segment's arenas and opens them: version 2
// lists each arena's end offset, version 1 counted arenas of the arena
// size (in metadata-only mode a segment is now one arena, opened when the
// file opened any).
func (s *Store) decodeArenas(r *snapReader) error {
	ends := make([][]int64, len(s.segs))
	for i, g := range s.segs {
		n := int64(r.u32())
		if r.err == nil && n > g.capacity/Granule+1 {
			return fmt.Errorf("segment %d: %d arenas, more than it can hold", i, n)
		}
		for a := range n {
			end := (a + 1) * g.arenaSize
			if r.version >= 2 {
				end = r.i64()
			}
			ends[i] = append(ends[i], min(end, g.capacity))
		}
	}
	if r.err != nil {
		return r.err
	}
	for i, g := range s.segs {
		for _, end := range ends[i] {
			if end <= g.openedEnd {
				if r.version >= 2 {
					return fmt.Errorf("segment %d: arena ends at %d, not after %d", i, end, g.openedEnd)
				}
				continue
			}
			g.openRaw(end-g.openedEnd, false)
		}
	}
	return nil
}

// decodeObject reads one object and, in byte mode, its bytes into place.
func (s *Store) decodeObject(r *snapReader) (o *object, groupID string, err error) {
	o = &object{key: r.str("key")}
	o.size = r.i64()
	o.seg = int32(min(r.u32(), math.MaxInt32))
	o.off = r.i64()
	o.publishedAt = r.i64()
	o.lease.Store(r.i64())
	flags := r.u8()
	if flags&objSoftPin != 0 {
		o.extras().softPinUntil = r.i64()
		s.softPins.Store(true)
	}
	if flags&objGroup != 0 {
		groupID = r.str("group id")
	}
	if r.err != nil {
		return nil, "", r.err
	}
	if flags&objHardPin != 0 {
		o.set(flagHardPin)
	}
	if err := s.checkPlacement(o, flags, r.version); err != nil {
		return nil, "", fmt.Errorf("key %q: %w", o.key, err)
	}
	o.setBytes(s.segs[o.seg].bytes(o.off, o.size))
	if b := o.bytes(); b != nil {
		r.bytes(b)
	}
	return o, groupID, r.err
}

// checkPlacement validates a decoded object's fields and sets its
// allocation size, as the file's format version allocated it.
func (s *Store) checkPlacement(o *object, flags byte, version uint32) error {
	switch {
	case o.key == "":
		return fmt.Errorf("empty key")
	case flags&^(objHardPin|objSoftPin|objGroup) != 0:
		return fmt.Errorf("unknown flags %#x", flags)
	case o.seg < 0 || int(o.seg) >= len(s.segs):
		return fmt.Errorf("segment %d is out of range", o.seg)
	}
	g := s.segs[o.seg]
	if o.size <= 0 || o.size > g.capacity {
		return fmt.Errorf("size %d is outside [1, %d]", o.size, g.capacity)
	}
	if version < 2 {
		o.set(flagAlignedAlloc) // version 1 allocated sizes rounded to Granule only
	}
	alloc := o.allocSize(s.qbits)
	if o.off < 0 || o.off%Granule != 0 || o.off >= g.capacity {
		return fmt.Errorf("offset %d is not a valid offset in segment %d", o.off, o.seg)
	}
	a := g.arenaOf(o.off)
	if a >= len(g.arenas) || o.off+alloc > g.arenas[a].end {
		return fmt.Errorf("[%d, %d) is not inside an allocated arena of segment %d", o.off, o.off+alloc, o.seg)
	}
	return nil
}

// install checks that no two objects overlap, rebuilds the free space and
// publishes the objects in file order.
func (s *Store) install(objs []*object, groups map[*object]string) error {
	perSeg := make([][]span, len(s.segs))
	for _, o := range objs {
		perSeg[o.seg] = append(perSeg[o.seg], span{o.off, o.allocSize(s.qbits)})
	}
	for i, spans := range perSeg {
		slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.off, b.off) })
		for j := 1; j < len(spans); j++ {
			if spans[j].off < spans[j-1].off+spans[j-1].n {
				return fmt.Errorf("segment %d: objects at %d and %d overlap", i, spans[j-1].off, spans[j].off)
			}
		}
		s.segs[i].restore(spans)
	}
	keys := newKeySlab(len(objs))
	s.index.growTo(headsFor(s.index.len() + int64(len(objs))))
	for _, o := range objs {
		key := o.key
		o.key = s.keys.storeKey(key, &keys)
		if !s.index.insert(o) { // decode refuses duplicate keys
			return fmt.Errorf("key %q is in the snapshot twice", key)
		}
		o.seq = s.seq.Add(1)
		o.set(flagPublished)
		s.published.Add(1)
		s.used.Add(o.size)
		s.segs[o.seg].held += o.size
		if gid := groups[o]; gid != "" {
			s.join(o, gid)
		}
	}
	return nil
}
