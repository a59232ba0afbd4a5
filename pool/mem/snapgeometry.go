package mem

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"

	"github.com/zeebo/xxh3"
)

// geometryParams are the URL parameters a snapshot's header also records;
// a URL that names a snapshot and none of them takes them from the file.
var geometryParams = []string{"capacity", "segments", "arena", "metadata_only"}

// adoptSnapshotGeometry sets opts' capacity, segments, arena size and mode
// from the header of the snapshot opts names, when the URL's query q sets
// none of them and the file's header reads, so that mem://?snapshot=PATH opens
// whatever pool saved PATH. A URL that sets any of them keeps its own, and
// a mismatch is refused when the file loads.
func adoptSnapshotGeometry(opts *Options, q url.Values) error {
	if opts.SnapshotPath == "" {
		return nil
	}
	for _, name := range geometryParams {
		if q.Has(name) {
			return nil
		}
	}
	g, err := readSnapshotGeometry(opts.SnapshotPath)
	if err != nil {
		// Absent: a new pool. Unreadable or not a snapshot: the URL is
		// still well formed; loading the file says what is wrong with it.
		return nil
	}
	opts.Capacity, opts.Segments, opts.ArenaSize, opts.MetadataOnly = g.capacity, g.segments, g.arena, g.metadataOnly
	return nil
}

// snapGeometry is what a snapshot's header says of the pool that saved it.
type snapGeometry struct {
	capacity, arena int64
	segments        int
	metadataOnly    bool
}

// readSnapshotGeometry reads the geometry from the header of the snapshot
// at path; the rest of the file is checked when it loads.
func readSnapshotGeometry(path string) (snapGeometry, error) {
	f, err := os.Open(path)
	if err != nil {
		return snapGeometry{}, err
	}
	defer f.Close()
	r := &snapReader{r: bufio.NewReaderSize(f, 64), h: xxh3.New()}
	var magic [len(snapMagic)]byte
	r.bytes(magic[:])
	if r.err == nil && string(magic[:]) != snapMagic {
		return snapGeometry{}, fmt.Errorf("not a kvctl mem pool snapshot (bad magic %q)", magic[:])
	}
	r.u32() // version, checked when the file loads
	flags := r.u32()
	g := snapGeometry{capacity: r.i64(), segments: int(r.u32()), arena: r.i64(), metadataOnly: flags&snapMetadataOnly != 0}
	if errors.Is(r.err, io.ErrUnexpectedEOF) {
		return snapGeometry{}, fmt.Errorf("truncated header: %w", r.err)
	}
	return g, r.err
}
