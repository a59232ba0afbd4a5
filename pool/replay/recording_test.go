package replay

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodHead = `{"scenario":"s","master_flags":{"default_kv_lease_ttl":"200","eviction_ratio":0.05},"segment_bytes":1048576,`

// TestParseErrors checks that bad recordings are refused with an error
// naming the op and field.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"not JSON", `{`, "unexpected EOF"},
		{"unknown top field", goodHead + `"ops":[{"op":"sleep","ms":1}],"extra":1}`, `unknown field "extra"`},
		{"unknown op field", goodHead + `"ops":[{"op":"sleep","ms":1,"when":2}]}`, `unknown field "when"`},
		{"no ops", goodHead + `"ops":[]}`, "ops: empty"},
		{"no segment", `{"scenario":"s","ops":[{"op":"sleep","ms":1}]}`, "segment_bytes 0"},
		{"unknown op", goodHead + `"ops":[{"op":"sleep","ms":1},{"op":"fly"}]}`, `op 1 (fly): field op: unknown op "fly"`},
		{"put without keys", goodHead + `"ops":[{"op":"put","bytes":8}]}`, "op 0 (put): field keys: empty"},
		{"put without bytes", goodHead + `"ops":[{"op":"put","keys":["a"]}]}`, "op 0 (put): field bytes: 0 is not positive"},
		{"empty key", goodHead + `"ops":[{"op":"exist","keys":["a",""]}]}`, "op 0 (exist): field keys[1]: empty key"},
		{"sleep without ms", goodHead + `"ops":[{"op":"sleep"}]}`, "op 0 (sleep): field ms: 0 is not positive"},
		{"sleep with keys", goodHead + `"ops":[{"op":"sleep","ms":1,"keys":["a"]}]}`, "op 0 (sleep): field keys: not an argument"},
		{"force on get", goodHead + `"ops":[{"op":"get","keys":["a"],"force":true}]}`, "op 0 (get): a field that is not an argument"},
		{"snapshot without label", goodHead + `"ops":[{"op":"snapshot"}]}`, "op 0 (snapshot): field label: empty"},
		{"wrong type", goodHead + `"ops":[{"op":"sleep","ms":"1"}]}`, "ops.ms"},
		{"unknown flag", `{"scenario":"s","master_flags":{"turbo":"1"},"segment_bytes":1,"ops":[{"op":"sleep","ms":1}]}`, "master_flags.turbo=1: unknown flag"},
		{"bad ttl", `{"scenario":"s","master_flags":{"default_kv_lease_ttl":"soon"},"segment_bytes":1,"ops":[{"op":"sleep","ms":1}]}`, "master_flags.default_kv_lease_ttl=soon: not a positive number"},
		{"bad ratio", `{"scenario":"s","master_flags":{"eviction_ratio":2},"segment_bytes":1,"ops":[{"op":"sleep","ms":1}]}`, "master_flags.eviction_ratio=2: not a number in [0, 1]"},
		{"op_rc length", goodHead + `"ops":[{"op":"sleep","ms":1}],"runs":[{"present_after":[],"evicted":[],"put_failures":[],"op_rc":[null,null]}]}`, "run 0: op_rc has 2 entries for 1 ops"},
		{"trailing data", goodHead + `"ops":[{"op":"sleep","ms":1}]} {}`, "data after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrBadRecording) {
				t.Errorf("Parse(%s) = %v, want an ErrBadRecording containing %q", tt.in, err, tt.want)
			}
		})
	}
}

// TestParseFixtures checks that every recording in testdata parses.
func TestParseFixtures(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(fixtures, "eviction-*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, p := range paths {
		if _, err := Load(p); err != nil {
			t.Errorf("Load(%s) = %v", p, err)
		}
	}
}

// FuzzParse checks that Parse never panics and that what it accepts
// yields pool options or a clear error.
func FuzzParse(f *testing.F) {
	b, err := os.ReadFile(filepath.Join(fixtures, "eviction-E7.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(goodHead + `"ops":[{"op":"put","keys":["a"],"bytes":8,"group":"g"}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		rec, err := Parse(in)
		if err != nil {
			if !errors.Is(err, ErrBadRecording) {
				t.Fatalf("Parse error %v does not wrap ErrBadRecording", err)
			}
			return
		}
		if len(rec.Ops) == 0 || rec.SegmentBytes <= 0 {
			t.Fatalf("Parse accepted %+v", rec)
		}
		rec.Config(0)
	})
}

func TestParseBounds(t *testing.T) {
	tests := []struct{ name, file string }{
		{"segment too large", `{"segment_bytes":17179869185,"ops":[{"op":"exist","keys":["a"]}]}`},
		{"one long sleep", `{"segment_bytes":1048576,"ops":[{"op":"sleep","ms":86400001}]}`},
		{"sleeps add up", `{"segment_bytes":1048576,"ops":[{"op":"sleep","ms":86400000},{"op":"sleep","ms":1}]}`},
	}
	for _, tt := range tests {
		if _, err := Parse([]byte(tt.file)); !errors.Is(err, ErrBadRecording) {
			t.Errorf("%s: Parse = %v, want ErrBadRecording", tt.name, err)
		}
	}
	if _, err := Parse([]byte(`{"segment_bytes":1048576,"ops":[{"op":"sleep","ms":86400000}]}`)); err != nil {
		t.Errorf("Parse of a day's sleep = %v, want nil", err)
	}
}
