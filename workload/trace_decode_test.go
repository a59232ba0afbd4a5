package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeOnItsOwn decodes one line with a decoder of its own, as ReadTrace
// did before it kept one decoder for every line: the reference.
func decodeOnItsOwn(text []byte) (TraceRecord, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	var v traceJSON
	if err := dec.Decode(&v); err != nil {
		return TraceRecord{}, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return TraceRecord{}, errors.New("text after the JSON object")
	}
	return v.record()
}

// decodeBoth decodes the lines of in with one recordDecoder and with a
// decoder per line, up to the first error, and says where they differ.
func decodeBoth(in string) string {
	d := newRecordDecoder()
	for i, line := range strings.Split(in, "\n") {
		text := bytes.TrimSpace([]byte(line))
		if len(text) == 0 {
			continue
		}
		got, err := d.decode(text)
		want, wantErr := decodeOnItsOwn(text)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			return fmt.Sprintf("line %d %q: error %v, want %v", i+1, text, err, wantErr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			return fmt.Sprintf("line %d %q (-want +got):\n%s", i+1, text, diff)
		}
		if err != nil {
			return ""
		}
	}
	return ""
}

var decodeCases = []string{
	`{"timestamp": 1, "input_length": 513, "output_length": 0, "hash_ids": [1, 2]}`,
	`{"timestamp": 1, "input_length": 1, "output_length": 0, "hash_ids": [1]} x`,
	`{"timestamp": 1, "input_length": 1, "output_length": 0, "hash_ids": [1]}{}`,
	`{"timestamp": 1, "input_length": 1, "output_length": 0, "hash_ids": [1]}` + "\f",
	`{"timestamp": 1, "input_length": 1, "output_length": 0, "hash_ids": [1]` + "\n{}",
	`{"timestamp": 1, "input_length": 1, "output_length": 0, "hash_ids": [1], "x": 2}`,
	`{"timestamp": 1, "input_length": 1, "output_length": 0}`,
	`{"timestamp": "1", "input_length": 1, "output_length": 0, "hash_ids": [1]}`,
	"123\n{}",
	"[]",
	`{"timestamp": 1, "input_length": 1, "output_length": 0, "hash_ids": [1]}` + " \t " + "\n" +
		`{"timestamp": 2, "input_length": 600, "output_length": 3, "hash_ids": [1, 2]}`,
}

// One decoder for every line decodes as a decoder per line did, records
// and errors alike, over the trace's head and lines made to fail.
func TestRecordDecoderAsOnItsOwn(t *testing.T) {
	head, err := os.ReadFile(headTrace)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range append(decodeCases, string(head)) {
		if diff := decodeBoth(in); diff != "" {
			t.Errorf("%.60q...: %s", in, diff)
		}
	}
}

func FuzzRecordDecoder(f *testing.F) {
	for _, in := range decodeCases {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if diff := decodeBoth(in); diff != "" {
			t.Error(diff)
		}
	})
}
