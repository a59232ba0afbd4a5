package workload

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const headTrace = "testdata/trace-conversation-head.jsonl"

func readHead(t testing.TB) []TraceRecord {
	t.Helper()
	f, err := os.Open(headTrace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []TraceRecord
	err = ReadTrace(f, headTrace, func(line int, rec TraceRecord) error {
		if line != len(recs)+1 {
			t.Errorf("ReadTrace line = %d, want %d", line, len(recs)+1)
		}
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		t.Fatalf("ReadTrace(%s) = %v", headTrace, err)
	}
	return recs
}

func TestReadTraceHead(t *testing.T) {
	recs := readHead(t)
	if len(recs) != 200 {
		t.Fatalf("ReadTrace(%s) read %d records, want 200", headTrace, len(recs))
	}
	want := TraceRecord{Timestamp: 0, InputLength: 6758, OutputLength: 500,
		HashIDs: []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}}
	if diff := cmp.Diff(want, recs[0]); diff != "" {
		t.Errorf("first record mismatch (-want +got):\n%s", diff)
	}
}

func TestReadTraceErrors(t *testing.T) {
	ok := `{"timestamp": 5, "input_length": 513, "output_length": 1, "hash_ids": [0, 1]}`
	tests := []struct {
		name, input, wantErr string
	}{
		{"not json", "{", "line 1: unexpected EOF"},
		{"not an object", "[1]", "line 1: json: cannot unmarshal array"},
		{"missing", `{"timestamp": 1, "input_length": 1, "output_length": 1}`, "line 1: hash_ids is missing"},
		{"missing ts", `{"input_length": 1, "output_length": 1, "hash_ids": [0]}`, "timestamp is missing"},
		{"missing input", `{"timestamp": 1, "output_length": 1, "hash_ids": [0]}`, "input_length is missing"},
		{"missing output", `{"timestamp": 1, "input_length": 1, "hash_ids": [0]}`, "output_length is missing"},
		{"unknown field", `{"timestamp": 1, "input_length": 1, "output_length": 1, "hash_ids": [0], "x": 1}`, `unknown field "x"`},
		{"too few ids", `{"timestamp": 1, "input_length": 1025, "output_length": 1, "hash_ids": [0, 1]}`, "2 hash_ids for input_length 1025, want 3"},
		{"too many ids", `{"timestamp": 1, "input_length": 512, "output_length": 1, "hash_ids": [0, 1]}`, "want 1"},
		{"negative id", `{"timestamp": 1, "input_length": 2, "output_length": 1, "hash_ids": [-3]}`, "hash_ids[0] = -3 is negative"},
		{"zero input", `{"timestamp": 1, "input_length": 0, "output_length": 1, "hash_ids": []}`, "input_length 0 is not positive"},
		{"negative output", `{"timestamp": 1, "input_length": 1, "output_length": -1, "hash_ids": [0]}`, "output_length -1 is negative"},
		{"negative time", `{"timestamp": -1, "input_length": 1, "output_length": 1, "hash_ids": [0]}`, "timestamp -1 is negative"},
		{"fraction", `{"timestamp": 1.5, "input_length": 1, "output_length": 1, "hash_ids": [0]}`, "cannot unmarshal number 1.5"},
		{"trailing", ok + ` {}`, "text after the JSON object"},
		{"back in time", ok + "\n\n" + strings.Replace(ok, `"timestamp": 5`, `"timestamp": 4`, 1),
			"line 3: timestamp 4 is before the previous request's 5"},
		{"empty", "", "no requests"},
		{"blank lines", "\n\n", "no requests"},
	}
	for _, tt := range tests {
		err := ReadTrace(strings.NewReader(tt.input), "t.jsonl", func(int, TraceRecord) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), `"t.jsonl"`) {
			t.Errorf("%s: ReadTrace = %v, want an error naming t.jsonl containing %q", tt.name, err, tt.wantErr)
		}
	}
}

func TestReadTraceStopsOnCallbackError(t *testing.T) {
	stop := errors.New("stop")
	calls := 0
	f, err := os.Open(headTrace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = ReadTrace(f, headTrace, func(int, TraceRecord) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("ReadTrace with a failing callback = %v after %d calls, want %v after 1", err, calls, stop)
	}
}

func TestReadTraceBlankLines(t *testing.T) {
	in := "\n  \n" + `{"timestamp": 0, "input_length": 1, "output_length": 0, "hash_ids": [7]}` + "\r\n\n"
	var lines []int
	err := ReadTrace(strings.NewReader(in), "b", func(line int, _ TraceRecord) error {
		lines = append(lines, line)
		return nil
	})
	if err != nil || !cmp.Equal(lines, []int{3}) {
		t.Errorf("ReadTrace(blank lines around one record) = %v, lines %v, want nil, [3]", err, lines)
	}
}
