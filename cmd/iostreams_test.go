package cmd

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTerminalWidth checks that the width comes from the stream stdout
// writes to: a buffer or a plain file is no terminal and gets the fallback.
func TestTerminalWidth(t *testing.T) {
	ios, _, _ := NewTestIOStreams("")
	if got := ios.TerminalWidth(); got != fallbackTerminalWidth {
		t.Errorf("TerminalWidth() over a buffer = %d, want %d", got, fallbackTerminalWidth)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ios.Out = f
	if got := ios.TerminalWidth(); got != fallbackTerminalWidth {
		t.Errorf("TerminalWidth() over a file = %d, want %d", got, fallbackTerminalWidth)
	}
}

func TestMapWidth(t *testing.T) {
	tests := []struct {
		outTTY bool
		want   int
	}{
		{false, 0},                         // piped: the whole map
		{true, fallbackTerminalWidth - 70}, // what the counts leave
	}
	for _, tt := range tests {
		ios, _, _ := NewTestIOStreams("")
		ios.OutTTY = tt.outTTY
		if got := mapWidth(ios); got != tt.want {
			t.Errorf("mapWidth(OutTTY %v) = %d, want %d", tt.outTTY, got, tt.want)
		}
	}
}
