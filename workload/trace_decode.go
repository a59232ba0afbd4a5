package workload

import (
	"encoding/json"
	"errors"
	"io"
)

// recordDecoder decodes the lines of a trace with one json.Decoder for all
// of them, fed a line at a time, instead of a decoder per line: a decoder
// copies its input into a buffer of its own, and a decoder per line left
// about 2.7 KB of garbage per line, some 30 MB over the 12,031 lines of
// the conversation trace, which a run with the collector off keeps.
// Errors are a decoder per line's: the decoder only ever sees the line
// being decoded, and what follows its object on the line is checked here.
type recordDecoder struct {
	dec *json.Decoder
	in  lineFeed
	fed int64 // bytes fed before the current line
	cur int64 // the current line's length
}

func newRecordDecoder() *recordDecoder {
	d := &recordDecoder{}
	d.dec = json.NewDecoder(&d.in)
	d.dec.DisallowUnknownFields()
	return d
}

// lineFeed is the decoder's input: the current line, then io.EOF until the
// next line is fed.
type lineFeed struct{ rest []byte }

func (f *lineFeed) Read(p []byte) (int, error) {
	if len(f.rest) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.rest)
	f.rest = f.rest[n:]
	return n, nil
}

// decode decodes text, one line with its surrounding white space trimmed,
// after the lines decoded before it without error.
func (d *recordDecoder) decode(text []byte) (TraceRecord, error) {
	d.fed += d.cur
	d.cur, d.in.rest = int64(len(text)), text
	var v traceJSON
	if err := d.dec.Decode(&v); err != nil {
		return TraceRecord{}, err
	}
	if !jsonSpace(text[d.dec.InputOffset()-d.fed:]) {
		return TraceRecord{}, errors.New("text after the JSON object")
	}
	return v.record()
}

// jsonSpace reports whether b is all JSON white space.
func jsonSpace(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}
