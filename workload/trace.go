package workload

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// TraceBlockTokens is the block size of Mooncake traces: one hash id per
// 512 prompt tokens, the last id possibly covering a partial block.
const TraceBlockTokens = 512

// maxTraceLine bounds one trace line (a prompt of about 2M ids).
const maxTraceLine = 16 << 20

// TraceRecord is one request of a Mooncake FAST'25 trace:
//
//	{"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47, ...]}
type TraceRecord struct {
	// Timestamp is the arrival time in milliseconds from the trace's start.
	Timestamp int64 `json:"timestamp"`
	// InputLength is the prompt length in tokens.
	InputLength int64 `json:"input_length"`
	// OutputLength is the number of tokens generated.
	OutputLength int64 `json:"output_length"`
	// HashIDs has one id per TraceBlockTokens prompt tokens; equal id
	// prefixes mean equal token prefixes.
	HashIDs []int64 `json:"hash_ids"`
}

// Validate checks the record on its own: a positive input length, a
// non-negative timestamp and output length, and one non-negative hash id
// per 512-token block, ceil(input_length/512) of them.
func (r TraceRecord) Validate() error {
	switch {
	case r.Timestamp < 0:
		return fmt.Errorf("timestamp %d is negative", r.Timestamp)
	case r.InputLength <= 0:
		return fmt.Errorf("input_length %d is not positive", r.InputLength)
	case r.OutputLength < 0:
		return fmt.Errorf("output_length %d is negative", r.OutputLength)
	}
	want := (r.InputLength + TraceBlockTokens - 1) / TraceBlockTokens
	if int64(len(r.HashIDs)) != want {
		return fmt.Errorf("%d hash_ids for input_length %d, want %d (one per %d tokens)",
			len(r.HashIDs), r.InputLength, want, TraceBlockTokens)
	}
	for i, id := range r.HashIDs {
		if id < 0 {
			return fmt.Errorf("hash_ids[%d] = %d is negative", i, id)
		}
	}
	return nil
}

// ReadTrace reads a Mooncake trace, one JSON object a line (blank lines
// are skipped), and calls fn with each record and its 1-based line number,
// stopping at fn's first error. It is strict: every field must be present,
// no other field may be, every record must pass Validate, and timestamps
// must not decrease. Errors name the input (name) and the line; those about
// the content wrap ErrBadInput, as does a trace with no requests.
func ReadTrace(r io.Reader, name string, fn func(line int, rec TraceRecord) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxTraceLine)
	prev := int64(0)
	line, seen := 0, false
	dec := newRecordDecoder()
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		rec, err := dec.decode(text)
		if err == nil && rec.Timestamp < prev {
			err = fmt.Errorf("timestamp %d is before the previous request's %d", rec.Timestamp, prev)
		}
		if err != nil {
			return badInput(fmt.Errorf("reading trace %q: line %d: %w", name, line, err))
		}
		prev, seen = rec.Timestamp, true
		if err := fn(line, rec); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		err = fmt.Errorf("reading trace %q: after line %d: %w", name, line, err)
		if errors.Is(err, bufio.ErrTooLong) {
			err = badInput(err)
		}
		return err
	}
	if !seen {
		return badInput(fmt.Errorf("reading trace %q: no requests", name))
	}
	return nil
}

// traceJSON has pointer fields so that missing fields can be told apart.
type traceJSON struct {
	Timestamp    *int64   `json:"timestamp"`
	InputLength  *int64   `json:"input_length"`
	OutputLength *int64   `json:"output_length"`
	HashIDs      *[]int64 `json:"hash_ids"`
}

// record is the record v spells, once every field is known present.
func (v *traceJSON) record() (TraceRecord, error) {
	switch {
	case v.Timestamp == nil:
		return TraceRecord{}, errors.New("timestamp is missing")
	case v.InputLength == nil:
		return TraceRecord{}, errors.New("input_length is missing")
	case v.OutputLength == nil:
		return TraceRecord{}, errors.New("output_length is missing")
	case v.HashIDs == nil:
		return TraceRecord{}, errors.New("hash_ids is missing")
	}
	rec := TraceRecord{Timestamp: *v.Timestamp, InputLength: *v.InputLength,
		OutputLength: *v.OutputLength, HashIDs: *v.HashIDs}
	return rec, rec.Validate()
}
