package cmd

// Helpers that read what several commands take: files or stdin, sizes,
// counts, the device to run on.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/size"
)

// openInput opens a file, or stdin for "-", and names it for errors.
func openInput(ios *IOStreams, path string) (name string, r io.ReadCloser, err error) {
	if path == "-" {
		return "stdin", io.NopCloser(ios.In), nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return path, nil, err
	}
	return path, fh, nil
}

// positiveSize parses a byte size given to flag name and refuses one that
// is not positive (a usage error).
func positiveSize(name, s string) (int64, error) {
	n, err := size.Parse(s)
	if err != nil {
		return 0, asUsage(fmt.Errorf("%s: %w", name, err))
	}
	if n <= 0 {
		return 0, usagef("%s must be positive, got %q", name, s)
	}
	return n, nil
}

// positiveInt parses a count that must be positive.
func positiveInt(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a positive integer", s)
	}
	return n, nil
}

// openDevice opens the asked device; auto says on stderr when it fell back
// to host emulation, cuda without a driver is exit 5.
func openDevice(ios *IOStreams, g *globalOptions, spec string) (cuda.Device, error) {
	dev, err := cuda.Open(spec)
	switch {
	case errors.Is(err, cuda.ErrBadSpec):
		return nil, asUsage(fmt.Errorf("--device: %w", err))
	case err != nil:
		return nil, &gpuUnavailable{err: fmt.Errorf("--device %s: %w", spec, err)}
	}
	if fb := dev.Info().Fallback; fb != "" && !g.Quiet {
		fmt.Fprintf(ios.ErrOut, "note: no usable GPU (%s): using host emulation\n", strings.ReplaceAll(fb, "\n", "; "))
	}
	return dev, nil
}

// readTokensFlag reads the prompt of --tokens (a file, or - for stdin) in
// the format of --tokens-format, and names its input. What the input says
// is keys.ErrBadInput; a failed read is not.
func readTokensFlag(ios *IOStreams, path, format string) (string, []int64, error) {
	f, err := keys.ParseTokensFormat(format)
	if err != nil {
		return "", nil, asUsage(fmt.Errorf("--tokens-format: %w", err))
	}
	name, r, err := openInput(ios, path)
	if err != nil {
		return name, nil, asUsage(fmt.Errorf("--tokens: %w", err))
	}
	defer r.Close()
	tokens, err := keys.ReadTokens(r, name, f)
	return name, tokens, err
}
