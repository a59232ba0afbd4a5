package mem

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/zeebo/xxh3"
)

const (
	snapMagic = "KVCTLMEM"
	// snapVersion is the version written; version 1 (a count of
	// fixed-size arenas per segment) is still read.
	snapVersion = 2

	snapMetadataOnly = 1 << 0

	objHardPin = 1 << 0
	objSoftPin = 1 << 1
	objGroup   = 1 << 2
)

// Snapshot saves the pool to its snapshot file (see the package doc for the
// format), atomically: a temporary file beside it is renamed over it.
func (s *Store) Snapshot(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx, "snapshot", 0, 0); err != nil {
		return err
	}
	if s.opts.SnapshotPath == "" {
		return errors.New("mem pool snapshot: no snapshot file (open the pool with snapshot=PATH)")
	}
	return s.save(s.opts.SnapshotPath)
}

// save writes the snapshot file; the caller holds s.mu exclusively.
func (s *Store) save(path string) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("saving snapshot %q: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("saving snapshot %q: %w", path, err)
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	if err := s.encode(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// snapWriter writes little-endian fields and hashes everything it writes.
type snapWriter struct {
	w   io.Writer
	h   *xxh3.Hasher
	buf []byte
	err error
}

func (w *snapWriter) bytes(p []byte) {
	if w.err != nil {
		return
	}
	w.h.Write(p)
	_, w.err = w.w.Write(p)
}

func (w *snapWriter) u32(v uint32) { w.bytes(binary.LittleEndian.AppendUint32(w.buf[:0], v)) }
func (w *snapWriter) u64(v uint64) { w.bytes(binary.LittleEndian.AppendUint64(w.buf[:0], v)) }
func (w *snapWriter) i64(v int64)  { w.u64(uint64(v)) }
func (w *snapWriter) str(v string) { w.u32(uint32(len(v))); w.bytes([]byte(v)) }

// encode writes the whole snapshot, checksum included.
func (s *Store) encode(out io.Writer) error {
	w := &snapWriter{w: out, h: xxh3.New(), buf: make([]byte, 0, 8)}
	w.bytes([]byte(snapMagic))
	w.u32(snapVersion)
	var flags uint32
	if s.opts.MetadataOnly {
		flags |= snapMetadataOnly
	}
	w.u32(flags)
	w.i64(s.opts.Capacity)
	w.u32(uint32(s.opts.Segments))
	w.i64(s.opts.ArenaSize)
	w.u32(uint32(s.nextSeg.Load() % uint64(len(s.segs))))
	w.i64(s.nowNanos())
	for _, c := range []int64{s.count.PutsExisting.Load(), s.count.AllocationFailure.Load(), s.count.EvictionAttempts, s.count.EvictedKeys, s.count.EvictedBytes} {
		w.i64(c)
	}
	for _, g := range s.segs {
		g.mu.Lock()
		w.u32(uint32(len(g.arenas)))
		for _, a := range g.arenas {
			w.i64(a.end)
		}
		g.mu.Unlock()
	}
	objs := s.publishedObjects()
	w.u64(uint64(len(objs)))
	for _, o := range objs {
		s.encodeObject(w, o)
	}
	if w.err != nil {
		return w.err
	}
	_, err := out.Write(binary.LittleEndian.AppendUint64(nil, w.h.Sum64()))
	return err
}

// publishedObjects lists the published objects in publish order.
func (s *Store) publishedObjects() []*object {
	objs := make([]*object, 0, s.published.Load())
	s.forEachObject(func(o *object) {
		if o.published() {
			objs = append(objs, o)
		}
	})
	slices.SortFunc(objs, func(a, b *object) int { return cmp.Compare(a.seq, b.seq) })
	return objs
}

func (s *Store) encodeObject(w *snapWriter, o *object) {
	w.str(s.keys.key(o.key))
	w.i64(o.size)
	w.u32(uint32(o.seg))
	w.i64(o.off)
	w.i64(o.publishedAt)
	w.i64(o.lease.Load())
	var flags byte
	if o.hardPinned() {
		flags |= objHardPin
	}
	if o.softPinUntil() != 0 {
		flags |= objSoftPin
	}
	if o.group() != nil {
		flags |= objGroup
	}
	w.bytes([]byte{flags})
	if o.softPinUntil() != 0 {
		w.i64(o.softPinUntil())
	}
	if o.group() != nil {
		w.str(o.group().id)
	}
	if !s.opts.MetadataOnly {
		w.bytes(o.bytes())
	}
}
