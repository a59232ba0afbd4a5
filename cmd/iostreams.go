package cmd

import (
	"bytes"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/term"
	"github.com/mattn/go-isatty"
	"github.com/muesli/termenv"
)

// IOStreams holds the streams a command reads and writes, whether each is a
// terminal, the colour decision and an injectable clock. Tests build one
// over buffers with NewTestIOStreams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	// InTTY, OutTTY and ErrTTY say whether each stream is a terminal.
	InTTY, OutTTY, ErrTTY bool

	// ColorMode is auto, always or never (the --color flag).
	ColorMode string
	// Getenv reads the environment (NO_COLOR, TERM).
	Getenv func(string) string
	// Now is the clock.
	Now func() time.Time
}

// NewSystemIOStreams returns streams over the process's stdin, stdout and
// stderr.
func NewSystemIOStreams() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTTY:     isTerminal(os.Stdin),
		OutTTY:    isTerminal(os.Stdout),
		ErrTTY:    isTerminal(os.Stderr),
		ColorMode: "auto",
		Getenv:    os.Getenv,
		Now:       time.Now,
	}
}

// NewTestIOStreams returns streams over buffers: stdin reads in, stdout and
// stderr are returned. No stream is a terminal and colour is off.
func NewTestIOStreams(in string) (ios *IOStreams, out, errOut *bytes.Buffer) {
	out, errOut = &bytes.Buffer{}, &bytes.Buffer{}
	ios = &IOStreams{
		In: strings.NewReader(in), Out: out, ErrOut: errOut,
		ColorMode: "auto",
		Getenv:    func(string) string { return "" },
		Now:       time.Now,
	}
	return ios, out, errOut
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// fallbackTerminalWidth is the width TerminalWidth assumes when stdout is
// not a terminal or its size cannot be read.
const fallbackTerminalWidth = 120

// TerminalWidth returns the width in columns of the terminal stdout (Out)
// writes to, or fallbackTerminalWidth when Out is not a terminal.
func (s *IOStreams) TerminalWidth() int { return widthOf(s.Out) }

// ErrTerminalWidth returns the width in columns of the terminal stderr
// (ErrOut) writes to, or fallbackTerminalWidth when ErrOut is not a
// terminal.
func (s *IOStreams) ErrTerminalWidth() int { return widthOf(s.ErrOut) }

func widthOf(w io.Writer) int {
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		if cols, _, err := term.GetSize(f.Fd()); err == nil && cols > 0 {
			return cols
		}
	}
	return fallbackTerminalWidth
}

// colorOn applies the one colour policy to a stream: --color always or
// never wins; auto colours only a terminal, with NO_COLOR unset and TERM
// not "dumb".
func (s *IOStreams) colorOn(tty bool) bool {
	switch s.ColorMode {
	case "always":
		return true
	case "never":
		return false
	}
	if !tty || s.Getenv("NO_COLOR") != "" || s.Getenv("TERM") == "dumb" {
		return false
	}
	return true
}

// ColorOut reports whether stdout gets colour.
func (s *IOStreams) ColorOut() bool { return s.colorOn(s.OutTTY) }

// ColorErr reports whether stderr gets colour.
func (s *IOStreams) ColorErr() bool { return s.colorOn(s.ErrTTY) }

// OutRenderer is a lipgloss renderer for stdout that honours the colour
// policy.
func (s *IOStreams) OutRenderer() *lipgloss.Renderer {
	return s.renderer(s.Out, s.ColorOut())
}

// ErrRenderer is a lipgloss renderer for stderr that honours the colour
// policy.
func (s *IOStreams) ErrRenderer() *lipgloss.Renderer {
	return s.renderer(s.ErrOut, s.ColorErr())
}

func (s *IOStreams) renderer(w io.Writer, color bool) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(w)
	if color {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	r.SetHasDarkBackground(true)
	return r
}
