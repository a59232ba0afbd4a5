// Package tracetest records an execution trace of a piece of code, for
// tests that check what the trace names (the regions and logs that
// kvctl --exectrace shows).
package tracetest

import (
	"bytes"
	"runtime/trace"
	"testing"
)

// Record runs fn under an execution trace and returns the trace. It skips
// the test when a trace of the test binary is already running, since only
// one trace runs at a time.
func Record(t testing.TB, fn func()) []byte {
	t.Helper()
	if trace.IsEnabled() {
		t.Skip("an execution trace of the test binary is running")
	}
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	fn()
	trace.Stop()
	return buf.Bytes()
}

// CheckNames fails t for each of names the trace tr does not contain.
func CheckNames(t testing.TB, tr []byte, names ...string) {
	t.Helper()
	for _, name := range names {
		if !bytes.Contains(tr, []byte(name)) {
			t.Errorf("the execution trace (%d bytes) does not name %q", len(tr), name)
		}
	}
}
