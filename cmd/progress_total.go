package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/kvctl/kvctl/workload"
)

// requestCount counts the requests of src, the total a progress bar and
// an interrupted message show. A request file or trace has one request a
// non-blank line, counted without parsing; any other source is counted
// request by request. A cancelled ctx stops it.
func requestCount(ctx context.Context, src workload.Source) (int64, error) {
	if fs, ok := src.(*workload.FileSource); ok {
		return nonBlankLines(ctx, fs.Path)
	}
	n, err := countSource(ctx, src)
	return n.requests, err
}

// nonBlankLines counts the lines of the file at path that hold more than
// white space, however long they are.
func nonBlankLines(ctx context.Context, path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("opening requests: %w", err)
	}
	defer f.Close()
	var lc lineCounter
	if _, err := io.Copy(&lc, contextReader{ctx: ctx, r: f}); err != nil {
		return 0, fmt.Errorf("counting requests in %q: %w", path, err)
	}
	if lc.text {
		lc.lines++
	}
	return lc.lines, nil
}

// lineCounter counts the non-blank lines written to it; text says the
// line written last, not yet ended, holds more than white space.
type lineCounter struct {
	lines int64
	text  bool
}

func (lc *lineCounter) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		line, rest, ended := bytes.Cut(b, []byte("\n"))
		lc.text = lc.text || len(bytes.TrimSpace(line)) > 0
		if !ended {
			break
		}
		if lc.text {
			lc.lines++
		}
		lc.text, b = false, rest
	}
	return n, nil
}
