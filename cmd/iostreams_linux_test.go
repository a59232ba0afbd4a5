package cmd

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTerminalWidthAsksOut checks that the width is the one of the
// terminal Out writes to (a pseudo-terminal 77 columns wide), whatever the
// process's own stdout is.
func TestTerminalWidthAsksOut(t *testing.T) {
	tty := openPTY(t, 77)
	ios, _, _ := NewTestIOStreams("")
	ios.Out = tty
	if got := ios.TerminalWidth(); got != 77 {
		t.Errorf("TerminalWidth() over a 77-column terminal = %d, want 77", got)
	}
}

// TestErrTerminalWidthAsksErrOut checks that the width the progress bar
// fits is the one of the terminal ErrOut writes to, not stdout's.
func TestErrTerminalWidthAsksErrOut(t *testing.T) {
	ios, _, _ := NewTestIOStreams("")
	ios.ErrOut = openPTY(t, 63)
	if got := ios.ErrTerminalWidth(); got != 63 {
		t.Errorf("ErrTerminalWidth() over a 63-column terminal = %d, want 63", got)
	}
	if got := ios.TerminalWidth(); got != fallbackTerminalWidth {
		t.Errorf("TerminalWidth() with stdout a buffer = %d, want %d", got, fallbackTerminalWidth)
	}
}

// openPTY opens a pseudo-terminal cols columns wide and returns its
// terminal end.
func openPTY(t *testing.T, cols uint16) *os.File {
	t.Helper()
	ptmx, tty, err := openPTYPair(cols)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	return tty
}

// openPTYPair opens a pseudo-terminal cols columns wide and returns its
// controlling end, which reads what is written to the terminal end, and
// its terminal end.
func openPTYPair(cols uint16) (ptmx, tty *os.File, err error) {
	ptmx, err = os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	tty, err = openPTYTerminal(ptmx, cols)
	if err != nil {
		ptmx.Close()
		return nil, nil, err
	}
	return ptmx, tty, nil
}

func openPTYTerminal(ptmx *os.File, cols uint16) (*os.File, error) {
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		return nil, fmt.Errorf("unlocking the pseudo-terminal: %w", err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		return nil, fmt.Errorf("naming the pseudo-terminal: %w", err)
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, fmt.Errorf("opening the pseudo-terminal: %w", err)
	}
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: 24}); err != nil {
		tty.Close()
		return nil, fmt.Errorf("sizing the pseudo-terminal: %w", err)
	}
	return tty, nil
}
