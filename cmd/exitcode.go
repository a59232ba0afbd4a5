package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mooncakestore"
	"github.com/kvctl/kvctl/pool/replay"
	"github.com/kvctl/kvctl/transfer"
	"github.com/kvctl/kvctl/workload"
)

// Exit codes, as DESIGN.md and docs/exit-codes.md list them.
const (
	ExitOK              = 0
	ExitFailure         = 1
	ExitUsage           = 2
	ExitVerifyFailed    = 3
	ExitPoolUnreachable = 4
	ExitGPUUnavailable  = 5
	ExitInterrupted     = 130
)

// usageError is a command-line mistake: a bad flag value, a missing
// argument, flags that cannot go together. It exits 2 and prints the usage.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a usage error with a formatted message.
func usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// asUsage marks err as a usage error (nil stays nil).
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	return &usageError{err: err}
}

// verifyError is a check the command ran that did not hold (loaded bytes
// differ, a request was lost). It exits 3.
type verifyError struct{ err error }

func (e *verifyError) Error() string { return e.err.Error() }
func (e *verifyError) Unwrap() error { return e.err }

// gpuUnavailable marks errors that mean the GPU or CUDA driver asked for
// cannot be used. It exits 5.
type gpuUnavailable struct{ err error }

func (e *gpuUnavailable) Error() string { return e.err.Error() }
func (e *gpuUnavailable) Unwrap() error { return e.err }

// exitCode maps a command's error to the process exit code: the one place
// that does. It goes by the error's type and the sentinels it wraps, never
// by its text.
func exitCode(err error) int {
	var (
		ve *verifyError
		ge *gpuUnavailable
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	case isUsage(err):
		return ExitUsage
	case errors.As(err, &ve), errors.Is(err, transfer.ErrVerifyFailed):
		return ExitVerifyFailed
	case errors.Is(err, pool.ErrUnreachable), errors.Is(err, mooncakestore.ErrNoLibrary):
		return ExitPoolUnreachable
	case errors.As(err, &ge), errors.Is(err, cuda.ErrNoDriver):
		return ExitGPUUnavailable
	default:
		return ExitFailure
	}
}

// isUsage reports whether err is the user's mistake on the command line or
// in a file it names: a usage error, a bad pool URL, key settings that
// cannot key a page, or a tokens, requests, trace or recording file that
// says something wrong, or a serve setting the engine or connector
// refuses.
func isUsage(err error) bool {
	var ue *usageError
	return errors.As(err, &ue) ||
		errors.Is(err, pool.ErrBadURL) ||
		errors.Is(err, keys.ErrBadSettings) ||
		errors.Is(err, keys.ErrBadInput) ||
		errors.Is(err, workload.ErrBadInput) ||
		errors.Is(err, replay.ErrBadRecording) ||
		errors.Is(err, engine.ErrBadConfig) ||
		errors.Is(err, connector.ErrBadConfig)
}
