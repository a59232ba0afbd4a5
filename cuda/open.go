package cuda

import (
	"fmt"
	"strconv"
	"strings"
)

// Open opens a device by spec:
//
//	auto    the first CUDA GPU, or host emulation when none is usable
//	        (Info().Fallback says why)
//	host    host emulation
//	cuda    the first CUDA GPU (cuda:0)
//	cuda:N  CUDA GPU N
//
// Without a usable driver or device, cuda and cuda:N return an error
// wrapping ErrNoDriver; a malformed spec returns one wrapping ErrBadSpec.
func Open(spec string) (Device, error) {
	kind, ordinal, err := parseSpec(spec)
	if err != nil {
		return nil, err
	}
	switch kind {
	case "host":
		return newHostDevice(""), nil
	case "cuda":
		return openDriverDevice(ordinal)
	}
	d, err := openDriverDevice(0)
	if err != nil {
		return newHostDevice(err.Error()), nil
	}
	return d, nil
}

// parseSpec splits a device spec into "auto", "host" or "cuda" and a CUDA
// ordinal.
func parseSpec(spec string) (kind string, ordinal int, err error) {
	s := strings.ToLower(strings.TrimSpace(spec))
	switch s {
	case "", "auto":
		return "auto", 0, nil
	case "host", "cpu":
		return "host", 0, nil
	case "cuda", "gpu":
		return "cuda", 0, nil
	}
	rest, ok := strings.CutPrefix(s, "cuda:")
	if !ok {
		return "", 0, fmt.Errorf("%w %q: want auto, host, cuda or cuda:N", ErrBadSpec, spec)
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 {
		return "", 0, fmt.Errorf("%w %q: device ordinal %q is not a non-negative integer", ErrBadSpec, spec, rest)
	}
	return "cuda", n, nil
}
