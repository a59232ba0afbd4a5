package mooncakestore

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kvctl/kvctl/pool"
)

func TestWithoutOwnSegmentWarning(t *testing.T) {
	const self = "127.0.0.1:14269"
	lost := "1 segment(s) are mounted but the master holds no keys: if it was restarted while its clients ran, it lost its metadata and every object put before is unreachable"
	other := "another warning"
	own, theirs := pool.Segment{Name: self}, pool.Segment{Name: "10.0.0.2:15000"}
	tests := []struct {
		name string
		st   pool.Stat
		want []string
	}{
		{"only its own segment", pool.Stat{Segments: []pool.Segment{own}, Warnings: []string{other, lost}}, []string{other}},
		{"another client's segment too", pool.Stat{Segments: []pool.Segment{own, theirs}, Warnings: []string{lost}}, []string{lost}},
		{"keys held", pool.Stat{Keys: 3, Segments: []pool.Segment{own}, Warnings: []string{lost}}, []string{lost}},
		{"no segments", pool.Stat{Warnings: []string{other}}, []string{other}},
	}
	for _, tt := range tests {
		got := withoutOwnSegmentWarning(tt.st, self)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("withoutOwnSegmentWarning(%s) (-want +got):\n%s", tt.name, diff)
		}
	}
}
