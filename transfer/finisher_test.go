package transfer

import "testing"

func TestFinisherForOneSetRunsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		n, setPages int
		goroutine   bool
	}{
		{0, 8, false},
		{8, 8, false},
		{9, 8, true},
	} {
		f := finisherFor(tc.n, tc.setPages)
		if got := f != nil; got != tc.goroutine {
			t.Errorf("finisherFor(%d, %d) has a goroutine = %v, want %v", tc.n, tc.setPages, got, tc.goroutine)
		}
		ran := false
		f.hand([]func(){func() { ran = true }})
		f.close()
		if !ran {
			t.Errorf("finisherFor(%d, %d): a func handed over did not run by close", tc.n, tc.setPages)
		}
	}
}
