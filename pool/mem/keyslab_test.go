package mem

import (
	"fmt"
	"strings"
	"testing"
)

// runKeys spells n keys with spell.
func runKeys(n int, spell func(i int) string) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = spell(i)
	}
	return keys
}

// Every key of a run stored in one slab keeps its own bytes, whatever the
// mix of forms and lengths, and a run of one form and length takes one
// allocation.
func TestKeySlab(t *testing.T) {
	tests := []struct {
		name   string
		keys   []string
		allocs float64 // -1: not checked
	}{
		{"packed", runKeys(300, func(i int) string { return fmt.Sprintf("m@%d@", i%3) + testHash }), 1},
		{"plain", runKeys(64, func(i int) string { return fmt.Sprintf("kvctl-bench/4096/1/%04d", i) }), 1},
		{"escaped", runKeys(64, func(i int) string { return fmt.Sprintf("\x00k%04d", i) }), 1},
		{"growing", runKeys(64, func(i int) string { return strings.Repeat("k", i+1) }), -1},
		{"mixed", runKeys(64, func(i int) string {
			return []string{"m@" + testHash, fmt.Sprintf("k%d", i), fmt.Sprintf("\x00%d", i), ""}[i%4]
		}), -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p keyPacker
			p.storeKey(tc.keys[0], new(keySlab)) // number the prefixes
			// Own allocations, then slabs shared with a second run, small
			// enough that runs change slabs and large ones get their own.
			for _, from := range []*slabs[byte]{nil, newSlabs[byte](256)} {
				stored, other := make([]string, len(tc.keys)), make([]string, len(tc.keys))
				slab, second := keySlab{left: len(tc.keys), from: from}, keySlab{left: len(tc.keys), from: from}
				for i, k := range tc.keys {
					stored[i], other[i] = p.storeKey(k, &slab), p.storeKey(k+"x", &second)
				}
				for i, k := range tc.keys {
					if got, gotOther := p.key(stored[i]), p.key(other[i]); got != k || gotOther != k+"x" {
						t.Errorf("shared %v: key(storeKey(%q)), of the second run's key, after the runs = %q, %q", from != nil, k, got, gotOther)
					}
				}
			}
			if tc.allocs < 0 {
				return
			}
			got := testing.AllocsPerRun(10, func() {
				slab := newKeySlab(min(len(tc.keys), slabObjects))
				for _, k := range tc.keys[:min(len(tc.keys), slabObjects)] {
					p.storeKey(k, &slab)
				}
			})
			if got != tc.allocs {
				t.Errorf("storing a run of %d keys: %v allocations, want %v", min(len(tc.keys), slabObjects), got, tc.allocs)
			}
		})
	}
}
