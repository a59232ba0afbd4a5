package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Request file formats Open accepts.
const (
	FormatAuto     = "auto"     // tell kvctl from mooncake by the first request's fields
	FormatKvctl    = "kvctl"    // kvctl request lines (ReadRequests)
	FormatMooncake = "mooncake" // a Mooncake FAST'25 trace (ReadTrace)
)

// Source produces requests in arrival order.
type Source interface {
	// Name describes the source in messages: a path or a spec.
	Name() string
	// Each calls fn with every request in arrival order, stopping at the
	// first error, which it returns.
	Each(fn func(req Request) error) error
}

// FileSource is a request file or a Mooncake trace. Each reads the file
// afresh, streaming: only one request is in memory at a time.
type FileSource struct {
	// Path is the file.
	Path string
	// Format is FormatKvctl or FormatMooncake.
	Format string
	// Synth synthesises the tokens of Mooncake trace requests.
	Synth Synthesizer
	// ReuseTokens lets Each hand every Mooncake request the same token
	// buffer, overwritten by the next request, and parse a request file's
	// lines into arrays given back once fn returns (TokenBuffers): set it
	// when fn does not keep req.Tokens, to save an allocation per request.
	ReuseTokens bool
	// Tokens, when set (and ReuseTokens not), is where Each takes every
	// request's token array: fn's caller gives each back once done with it
	// (TokenBuffers.Give), for the requests after it.
	Tokens *TokenBuffers
}

// Open opens a request file in the given format (FormatAuto, FormatKvctl
// or FormatMooncake; "" means auto). Auto looks at the first non-blank
// line: a "hash_ids" field means a Mooncake trace, a "tokens" field a
// kvctl request file.
func Open(path, format string) (*FileSource, error) {
	switch format {
	case "", FormatAuto:
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("opening requests: %w", err)
		}
		defer f.Close()
		format, err = sniffFormat(f, path)
		if err != nil {
			return nil, err
		}
	case FormatKvctl, FormatMooncake:
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("opening requests: %w", err)
		}
	default:
		return nil, fmt.Errorf("unknown request format %q (want auto, kvctl or mooncake)", format)
	}
	return &FileSource{Path: path, Format: format}, nil
}

// sniffFormat reads the first non-blank line of r and tells its format.
func sniffFormat(r io.Reader, name string) (string, error) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if text := bytes.TrimSpace(line); len(text) > 0 {
			return formatOfLine(text, name)
		}
		if errors.Is(err, io.EOF) {
			return "", badInput(fmt.Errorf("reading requests from %q: no requests", name))
		}
		if err != nil {
			return "", fmt.Errorf("reading requests from %q: %w", name, err)
		}
	}
}

func formatOfLine(text []byte, name string) (string, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(text, &fields); err != nil {
		return "", badInput(fmt.Errorf("reading requests from %q: cannot tell the format: first line: %w", name, err))
	}
	if _, ok := fields["hash_ids"]; ok {
		return FormatMooncake, nil
	}
	if _, ok := fields["tokens"]; ok {
		return FormatKvctl, nil
	}
	return "", badInput(fmt.Errorf("reading requests from %q: cannot tell the format: "+
		"the first request has neither hash_ids (mooncake) nor tokens (kvctl)", name))
}

// Name returns the path.
func (s *FileSource) Name() string { return s.Path }

// Each streams the file's requests to fn. Mooncake records become requests
// with ID "t<line>", ArrivalMS = timestamp, OutputLength = output_length
// and synthesised tokens.
func (s *FileSource) Each(fn func(req Request) error) error {
	f, err := os.Open(s.Path)
	if err != nil {
		return fmt.Errorf("opening requests: %w", err)
	}
	defer f.Close()
	if s.Format != FormatMooncake {
		return s.eachRequest(f, fn)
	}
	var buf []int64
	return ReadTrace(f, s.Path, func(line int, rec TraceRecord) error {
		if !s.ReuseTokens && s.Tokens != nil && rec.Validate() == nil { // its length checked first
			buf = s.Tokens.take(int(rec.InputLength))
		}
		req, err := s.traceRequest(line, rec, buf[:0])
		if err != nil {
			return err
		}
		if s.ReuseTokens {
			buf = req.Tokens
		}
		return fn(req)
	})
}

// eachRequest is Each for a kvctl request file. With ReuseTokens each
// request's token array is given back once fn returns, for the lines
// parsed after it (TokenBuffers).
func (s *FileSource) eachRequest(r io.Reader, fn func(req Request) error) error {
	bufs := s.Tokens
	if s.ReuseTokens && bufs == nil {
		bufs = NewTokenBuffers()
	}
	return ReadRequestsInto(r, s.Path, bufs, func(_ int, req Request) error {
		err := fn(req)
		if s.ReuseTokens {
			bufs.Give(req.Tokens)
		}
		return err
	})
}

func (s *FileSource) traceRequest(line int, rec TraceRecord, buf []int64) (Request, error) {
	tokens, err := s.Synth.AppendTokens(buf, rec)
	if err != nil {
		return Request{}, badInput(fmt.Errorf("reading trace %q: line %d: %w", s.Path, line, err))
	}
	return Request{ID: "t" + strconv.Itoa(line), Tokens: tokens, ArrivalMS: rec.Timestamp,
		OutputLength: int(rec.OutputLength)}, nil
}

// EachTrace streams the records of a Mooncake trace without synthesising
// tokens, for callers that work on 512-token blocks (see
// Synthesizer.ChainSeeds). It fails on a kvctl request file.
func (s *FileSource) EachTrace(fn func(line int, rec TraceRecord) error) error {
	if s.Format != FormatMooncake {
		return fmt.Errorf("%q is a %s request file, not a mooncake trace", s.Path, s.Format)
	}
	f, err := os.Open(s.Path)
	if err != nil {
		return fmt.Errorf("opening trace: %w", err)
	}
	defer f.Close()
	return ReadTrace(f, s.Path, fn)
}

// Collect reads every request of src into memory.
func Collect(src Source) ([]Request, error) {
	var out []Request
	err := src.Each(func(req Request) error {
		out = append(out, req)
		return nil
	})
	return out, err
}
