package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/kvctl/kvctl/chart"
	"github.com/spf13/pflag"
)

// plotFlag is --plot FILE: a figure of the command's results, SVG or PNG
// by the file's extension. The file is opened before the run (open), so
// that a path kvctl cannot write fails at once, and written after it.
type plotFlag struct {
	Path    string
	format  chart.Format
	f       *os.File
	created bool // open made the file: discard removes it
}

// register registers --plot; what names the figure.
func (p *plotFlag) register(fs *pflag.FlagSet, what string) {
	fs.StringVar(&p.Path, "plot", "", "draw "+what+" into FILE, SVG or PNG by its extension (.svg, .png)")
}

// open checks --plot before the run: a usage error (exit 2) for a name
// without .svg or .png or a file that cannot be written.
func (p *plotFlag) open() error {
	if p.Path == "" {
		return nil
	}
	f, err := chart.FormatOf(p.Path)
	if err != nil {
		return usagef("--plot %w", err)
	}
	_, statErr := os.Stat(p.Path)
	file, err := os.OpenFile(p.Path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return usagef("--plot: %w", err)
	}
	p.format, p.f, p.created = f, file, errors.Is(statErr, fs.ErrNotExist)
	return nil
}

// write renders the chart made (or its error) into the file open opened,
// replacing what it held.
func (p *plotFlag) write(c *chart.Chart, err error) error {
	if p.f == nil {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--plot %s: %w", p.Path, err)
	}
	f := p.f
	p.f = nil
	if err := f.Truncate(0); err != nil {
		f.Close()
		return fmt.Errorf("--plot: %w", err)
	}
	if err := c.Render(f, p.format); err != nil {
		f.Close()
		return fmt.Errorf("--plot %s: %w", p.Path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	return nil
}

// discard closes a file that was opened but not written, and removes it
// when open made it: a run that failed leaves no empty figure behind.
func (p *plotFlag) discard() {
	if p.f == nil {
		return
	}
	p.f.Close()
	p.f = nil
	if p.created {
		os.Remove(p.Path)
	}
}
