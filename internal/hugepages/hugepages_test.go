package hugepages

import "testing"

// Memory advised is eligible for huge pages inside its whole 2 MiB pages;
// memory not advised is not, under the madvise setting.
func TestAdviseMakesWholeHugePagesEligible(t *testing.T) {
	if m := Mode(); m != "madvise" {
		t.Skipf("transparent huge pages: %q (the advice decides only under madvise)", m)
	}
	advised, plain := make([]byte, 6*Size), make([]byte, 6*Size)
	Advise(advised[1:]) // an unaligned start: only the whole pages inside
	for name, c := range map[string]struct {
		mem  []byte
		want bool
	}{"advised": {advised[2*Size:], true}, "plain": {plain[2*Size:], false}} {
		got, err := Eligible(c.mem)
		if err != nil {
			t.Skip(err)
		}
		if got != c.want {
			t.Errorf("%s memory: eligible %v, want %v", name, got, c.want)
		}
	}
}

// Advise takes memory of any length and start, empty included.
func TestAdviseTakesAnySlice(t *testing.T) {
	for _, n := range []int{0, 1, Size - 1, Size + 1} {
		Advise(make([]byte, n))
	}
	Advise(nil)
}
