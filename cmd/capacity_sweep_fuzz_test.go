package cmd

import (
	"strings"
	"testing"
)

// FuzzCapacitySweep: --sweep capacity=... either fails with an error or
// yields one positive capacity per comma-separated value.
func FuzzCapacitySweep(f *testing.F) {
	for _, s := range []string{"capacity=1GiB", "capacity=4TiB,5936GiB,6304GiB", "capacity=", "size=1GiB", "capacity=0",
		"capacity=1GiB,,2GiB", "capacity=-1", "capacity=1e3", "=", "capacity=1 GiB", "capacity=9999999PiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sw string) {
		spec, err := capacitySweepValues([]string{sw})
		if err != nil {
			return
		}
		caps, err := parseCapacities(spec)
		if err != nil {
			return
		}
		if want := strings.Count(spec, ",") + 1; len(caps) != want {
			t.Fatalf("parseCapacities(%q) = %d capacities, want %d", spec, len(caps), want)
		}
		for _, c := range caps {
			if c <= 0 {
				t.Fatalf("parseCapacities(%q) = %v, want every capacity positive", spec, caps)
			}
		}
	})
}
