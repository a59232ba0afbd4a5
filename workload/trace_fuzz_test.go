package workload

import (
	"os"
	"strings"
	"testing"
)

func FuzzReadTrace(f *testing.F) {
	head, err := os.ReadFile(headTrace)
	if err != nil {
		f.Fatal(err)
	}
	lines := strings.SplitN(string(head), "\n", 4)
	f.Add(strings.Join(lines[:3], "\n"))
	f.Add(`{"timestamp": 1, "input_length": 513, "output_length": 0, "hash_ids": [1, 2]}`)
	f.Add(`{"timestamp": 1, "input_length": 1, "output_length": 0, "hash_ids": [1]} x`)
	f.Add("\n\n{}\n")
	f.Fuzz(func(t *testing.T, in string) {
		prev := int64(0)
		var s Synthesizer
		_ = ReadTrace(strings.NewReader(in), "fuzz", func(line int, rec TraceRecord) error {
			if err := rec.Validate(); err != nil {
				t.Fatalf("ReadTrace passed an invalid record on line %d: %v", line, err)
			}
			if rec.Timestamp < prev {
				t.Fatalf("ReadTrace passed timestamp %d after %d", rec.Timestamp, prev)
			}
			prev = rec.Timestamp
			if rec.InputLength <= 1<<16 {
				tok, err := s.AppendTokens(nil, rec)
				if err != nil || int64(len(tok)) != rec.InputLength {
					t.Fatalf("AppendTokens(valid record) = %d tokens, %v, want %d", len(tok), err, rec.InputLength)
				}
			}
			return nil
		})
		if f, err := formatOfLine([]byte(in), "fuzz"); err == nil && f != FormatMooncake && f != FormatKvctl {
			t.Fatalf("formatOfLine(%q) = %q, want mooncake or kvctl", in, f)
		}
	})
}
