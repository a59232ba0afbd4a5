package cmd

import (
	"strings"
	"testing"
	"time"
)

// TestProgressUpdatePart checks that the bar counts the sum over the parts,
// each at its latest count.
func TestProgressUpdatePart(t *testing.T) {
	ios, _, errOut := NewTestIOStreams("")
	ios.ErrTTY = true
	now := time.Unix(0, 0)
	ios.Now = func() time.Time { now = now.Add(time.Second); return now }
	bar := newProgress(ios, &globalOptions{}, "simulating", 40)
	bar.updatePart(1, 10, "")
	bar.updatePart(2, 5, "")
	bar.updatePart(1, 12, "")
	if got := errOut.String(); !strings.HasSuffix(got, " 17/40 ") {
		t.Errorf("after parts 1: 12 and 2: 5, the bar reads %q, want it to end in 17/40", got)
	}
}

func TestProgressOffWithoutTerminal(t *testing.T) {
	ios, _, errOut := NewTestIOStreams("")
	bar := newProgress(ios, &globalOptions{}, "simulating", 40)
	bar.updatePart(1, 10, "")
	bar.update(20, "")
	bar.done()
	if errOut.Len() != 0 {
		t.Errorf("progress with stderr not a terminal wrote %q, want nothing", errOut.String())
	}
}
