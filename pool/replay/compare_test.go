package replay

import (
	"strings"
	"testing"
)

func TestMismatch(t *testing.T) {
	recorded := Outcome{
		PresentAfter: []string{"c", "d"}, Evicted: []string{"a", "b"}, PutFailures: []PutFailure{},
		OpRC:      []map[string]int{nil, {"c": 1}},
		Snapshots: map[string][]string{"s": {"a", "c"}},
	}
	with := func(edit func(*Outcome)) Outcome {
		o := recorded
		edit(&o)
		return o
	}
	tests := []struct {
		name string
		got  Outcome
		want string // a part of the error; "" for nil
	}{
		{"equal", recorded, ""},
		{"evicted", with(func(o *Outcome) { o.Evicted = []string{"a", "e"} }), "evicted keys differ: e not recorded; b recorded only"},
		{"present", with(func(o *Outcome) { o.PresentAfter = []string{"c"} }), "keys present after differ: none not recorded; d recorded only"},
		{"put failures", with(func(o *Outcome) { o.PutFailures = []PutFailure{{"x", -200}} }), "put failures [{x -200}], recorded []"},
		{"op codes", with(func(o *Outcome) { o.OpRC = []map[string]int{nil, {"c": 0}} }), "op 1: codes map[c:0], recorded map[c:1]"},
		{"snapshot", with(func(o *Outcome) { o.Snapshots = map[string][]string{"s": {"a"}} }), `snapshot "s" differs`},
		{"op codes not recorded", with(func(o *Outcome) { o.Snapshots = nil; o.OpRC = nil }), "op 1: codes map[], recorded map[c:1]"},
	}
	for _, tt := range tests {
		err := Mismatch(recorded, tt.got)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: Mismatch = %v, want nil", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: Mismatch = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// TestMismatchNoneForRecordedRunsThatMatch checks that a recording with
// nothing beyond the keys matches any outcome Same as it: codes and
// snapshots are compared only where recorded.
func TestMismatchNoneForRecordedRunsThatMatch(t *testing.T) {
	recorded := Outcome{PresentAfter: []string{"a"}, Evicted: []string{}, PutFailures: []PutFailure{}}
	got := recorded
	got.OpRC = []map[string]int{{"a": 1}}
	got.Snapshots = map[string][]string{"s": {"a"}}
	if err := Mismatch(recorded, got); err != nil {
		t.Errorf("Mismatch = %v, want nil", err)
	}
}
