package workload

import "errors"

// ErrBadInput is wrapped by every error about what a request file or trace
// says (a line that is not one valid request, a token outside int64, a
// decreasing timestamp, a file with no requests), as opposed to a failure
// to read it. The message around it names the input and, where there is
// one, the line.
var ErrBadInput = errors.New("bad request input")

// badInput marks err as bad input, leaving its text as it is.
func badInput(err error) error { return badInputError{err} }

type badInputError struct{ err error }

func (e badInputError) Error() string   { return e.err.Error() }
func (e badInputError) Unwrap() []error { return []error{e.err, ErrBadInput} }
