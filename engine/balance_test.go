package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPrefillBalance(t *testing.T) {
	tests := []struct {
		name     string
		passes   [][]int
		want     *PrefillBalance
		perOwner []int64
	}{
		{"no prefill", [][]int{{0, 0}}, nil, []int64{0, 0}},
		{"even", [][]int{{4, 4}, {2, 2}}, &PrefillBalance{Passes: 2, Max: 3, Mean: 3, Imbalance: 1}, []int64{6, 6}},
		{"one owner at a time, decode passes left out", [][]int{{10, 0}, {0, 0}, {6, 2}},
			&PrefillBalance{Passes: 2, Max: 8, Mean: 4.5, Imbalance: 8 / 4.5}, []int64{16, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b prefillBalance
			for _, p := range tt.passes {
				copy(b.start(len(p)), p)
				b.add(b.scratch)
			}
			if diff := cmp.Diff(tt.want, b.report()); diff != "" {
				t.Errorf("report() of %v (-want +got):\n%s", tt.passes, diff)
			}
			if !cmp.Equal(b.perOwner, tt.perOwner) {
				t.Errorf("per owner %v, want %v", b.perOwner, tt.perOwner)
			}
		})
	}
}
