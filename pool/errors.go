package pool

import (
	"errors"
	"fmt"
)

// Code is a Mooncake error code (ErrorCode in Mooncake's types.h); OK is 0
// and failures are negative.
type Code int

// The Mooncake codes kvctl surfaces.
const (
	OK                  Code = 0
	NoAvailableHandle   Code = -200
	InvalidParams       Code = -600
	ReplicaIsNotReady   Code = -703
	ObjectNotFound      Code = -704
	ObjectAlreadyExists Code = -705
	ObjectHasLease      Code = -706
	LeaseExpired        Code = -707
	TransferFail        Code = -800
	RPCFail             Code = -900
	RPCTimeout          Code = -901
)

var codeNames = map[Code]string{
	OK:                  "OK",
	NoAvailableHandle:   "NO_AVAILABLE_HANDLE",
	InvalidParams:       "INVALID_PARAMS",
	ReplicaIsNotReady:   "REPLICA_IS_NOT_READY",
	ObjectNotFound:      "OBJECT_NOT_FOUND",
	ObjectAlreadyExists: "OBJECT_ALREADY_EXISTS",
	ObjectHasLease:      "OBJECT_HAS_LEASE",
	LeaseExpired:        "LEASE_EXPIRED",
	TransferFail:        "TRANSFER_FAIL",
	RPCFail:             "RPC_FAIL",
	RPCTimeout:          "RPC_TIMEOUT",
}

// String is the code's Mooncake name, such as OBJECT_NOT_FOUND, or its
// number when kvctl does not know the name.
func (c Code) String() string {
	if s, ok := codeNames[c]; ok {
		return s
	}
	return fmt.Sprintf("code %d", int(c))
}

// CodeByName maps a Mooncake error name (as the master's HTTP API spells
// it, e.g. "OBJECT_NOT_FOUND") to its Code; ok is false for unknown names.
func CodeByName(name string) (c Code, ok bool) {
	for code, n := range codeNames {
		if n == name {
			return code, true
		}
	}
	return 0, false
}

// Error is a failure that carries a Mooncake code.
type Error struct {
	Code Code
	// Op is the operation, such as "put" or "exist".
	Op string
	// Key is the key concerned, when there is one.
	Key string
	// Err is the underlying cause, when there is one.
	Err error
}

// Error formats the error as "put "k": OBJECT_HAS_LEASE (-706): cause".
func (e *Error) Error() string {
	s := e.Op
	if e.Key != "" {
		s += fmt.Sprintf(" %q", e.Key)
	}
	s += fmt.Sprintf(": %s (%d)", e.Code, int(e.Code))
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// CodeOf returns the Mooncake code carried by err (through wrapping), OK for
// a nil error, and RPCFail for an error that carries none.
func CodeOf(err error) Code {
	if err == nil {
		return OK
	}
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return RPCFail
}

// ErrReadOnly is wrapped by every write to a read-only backend; the message
// around it names the backend.
var ErrReadOnly = errors.New("pool is read-only")

// ErrUnreachable is wrapped by every failure to reach a pool (connection
// refused, timeout, DNS); the message around it names the address. Commands
// map it to exit code 4.
var ErrUnreachable = errors.New("pool unreachable")

// ErrBadURL is wrapped by every failure to parse a pool URL.
var ErrBadURL = errors.New("bad pool URL")
