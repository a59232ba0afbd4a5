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
	// ReuseTokens lets Each give every request's token array back once fn
	// returns, so that the requests after it are made in the same memory
	// (TokenBuffers): set it when fn does not keep req.Tokens, to save an
	// allocation per request.
	ReuseTokens bool
	// Tokens, when set, is where Each takes every request's token array:
	// without ReuseTokens, fn's caller gives each back once done with it
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
// and synthesised tokens. Token arrays come from s.Tokens when set; with
// ReuseTokens each is given back once fn returns, for the requests after
// it.
func (s *FileSource) Each(fn func(req Request) error) error {
	f, err := os.Open(s.Path)
	if err != nil {
		return fmt.Errorf("opening requests: %w", err)
	}
	defer f.Close()
	bufs, each := s.Tokens, fn
	if s.ReuseTokens {
		if bufs == nil {
			bufs = NewTokenBuffers()
		}
		each = func(req Request) error {
			err := fn(req)
			bufs.Give(req.Tokens)
			return err
		}
	}
	if s.Format != FormatMooncake {
		return ReadRequestsInto(f, s.Path, bufs, func(_ int, req Request) error { return each(req) })
	}
	return ReadTrace(f, s.Path, func(line int, rec TraceRecord) error {
		req, err := s.traceRequest(line, rec, bufs)
		if err != nil {
			return err
		}
		return each(req)
	})
}

// traceRequest is the request of a Mooncake record, its tokens
// synthesised into an array from bufs (nil: a new one). The array has
// room for the tokens its hash ids can spell at most, so a record whose
// length the hash ids do not bear out asks for no more than its line
// holds; AppendTokens refuses it.
func (s *FileSource) traceRequest(line int, rec TraceRecord, bufs *TokenBuffers) (Request, error) {
	room := max(0, min(rec.InputLength, int64(len(rec.HashIDs))*TraceBlockTokens))
	tokens, err := s.Synth.AppendTokens(bufs.take(int(room)), rec)
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
