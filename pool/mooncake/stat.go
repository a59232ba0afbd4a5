package mooncake

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/kvctl/kvctl/pool"
)

// maxKeyLine bounds one line of /get_all_keys.
const maxKeyLine = 16 << 20

// Health asks GET /health. A master that answers with a status other than
// "ok" fails with an error wrapping pool.ErrUnreachable.
func (s *Store) Health(ctx context.Context) (Health, error) {
	const path = "/health"
	body, err := s.c.get(ctx, path, "")
	if err != nil {
		return Health{}, err
	}
	h, err := parseHealth(body)
	if err != nil {
		return Health{}, s.c.malformed(path, err)
	}
	if !strings.EqualFold(h.Status, "ok") {
		return h, s.c.fail(path, fmt.Errorf("%w: status %q", pool.ErrUnreachable, h.Status))
	}
	return h, nil
}

// Stat reads GET /metrics and GET /get_segments_detail. A master without
// /get_segments_detail (404, older releases) gets its segments from the
// per-segment gauges of /metrics instead. Segments mounted on a master that
// holds no keys add a warning (lostMetadataWarning).
func (s *Store) Stat(ctx context.Context) (pool.Stat, error) {
	const path = "/metrics"
	body, err := s.c.get(ctx, path, "")
	if err != nil {
		return pool.Stat{}, err
	}
	samples, err := parseMetrics(body)
	if err != nil {
		return pool.Stat{}, s.c.malformed(path, err)
	}
	st, err := statFromMetrics(samples)
	if err != nil {
		return pool.Stat{}, s.c.malformed(path, err)
	}
	st.Backend, st.Address, st.ReadOnly = "mooncake", s.c.addr, true
	segs, err := s.segments(ctx)
	if errors.Is(err, errNoEndpoint) {
		segs, err = segmentsFromMetrics(samples)
		if err != nil {
			return pool.Stat{}, s.c.malformed(path, err)
		}
	} else if err != nil {
		return pool.Stat{}, err
	}
	st.Segments = segs
	if w, ok := lostMetadataWarning(st); ok {
		st.Warnings = append(st.Warnings, w)
	}
	return st, nil
}

// errNoEndpoint is the cause of a 404 for an endpoint the master lacks.
var errNoEndpoint = errors.New("endpoint not found")

// segments reads GET /get_segments_detail.
func (s *Store) segments(ctx context.Context) ([]pool.Segment, error) {
	const path = "/get_segments_detail"
	body, err := s.c.get(ctx, path, "")
	var se *statusError
	if errors.As(err, &se) && se.Status == http.StatusNotFound {
		return nil, errNoEndpoint
	}
	if err != nil {
		return nil, err
	}
	segs, err := parseSegments(body)
	if err != nil {
		return nil, s.c.malformed(path, err)
	}
	return segs, nil
}

// List streams GET /get_all_keys and calls fn for every key that starts with
// prefix (the master filters nothing: the prefix is applied here). Blank
// lines are skipped and a trailing \r is dropped. A listing that breaks off
// without its final newline is reported as truncated. An error fn returns
// is returned as it is.
func (s *Store) List(ctx context.Context, prefix string, fn func(key string) error) error {
	err := s.c.stream(ctx, "/get_all_keys", func(r io.Reader) error {
		return scanKeys(r, prefix, fn)
	})
	var st stopped
	if errors.As(err, &st) {
		return st.err
	}
	return err
}

// stopped carries the error that the caller's fn returned.
type stopped struct{ err error }

func (e stopped) Error() string { return e.err.Error() }

// truncatedError is a listing whose last line has no newline.
type truncatedError struct{ last string }

func (e truncatedError) Error() string {
	return fmt.Sprintf("%v: listing ends without a newline after %q", ErrMalformedAnswer, snippet([]byte(e.last)))
}
func (e truncatedError) Unwrap() error { return ErrMalformedAnswer }

// scanKeys reads one key per line from r.
func scanKeys(r io.Reader, prefix string, fn func(string) error) error {
	br := bufio.NewReaderSize(r, 256<<10)
	for {
		line, err := readLine(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		key := strings.TrimSuffix(line, "\r")
		if key == "" || !strings.HasPrefix(key, prefix) {
			continue
		}
		if err := fn(key); err != nil {
			return stopped{err}
		}
	}
}

// readLine reads one newline-terminated line (without the newline),
// refusing lines longer than maxKeyLine and a last line without a newline.
func readLine(br *bufio.Reader) (string, error) {
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case err == nil:
			if long == nil {
				return string(chunk[:len(chunk)-1]), nil
			}
			long = append(long, chunk[:len(chunk)-1]...)
			return string(long), nil
		case err == bufio.ErrBufferFull:
			if len(long)+len(chunk) > maxKeyLine {
				return "", fmt.Errorf("%w: a line is longer than %d bytes", ErrMalformedAnswer, maxKeyLine)
			}
			long = append(long, chunk...)
		case err == io.EOF:
			if len(long)+len(chunk) == 0 {
				return "", io.EOF
			}
			return "", truncatedError{last: string(append(long, chunk...))}
		default:
			return "", readError{err}
		}
	}
}
