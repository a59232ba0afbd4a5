package tracetest

import (
	"context"
	"runtime/trace"
	"testing"
)

func TestRecordHoldsWhatFnLogged(t *testing.T) {
	tr := Record(t, func() { trace.Log(context.Background(), "tracetest", "a logged name") })
	CheckNames(t, tr, "tracetest", "a logged name")
	probe := &testing.T{}
	CheckNames(probe, tr, "a name never logged")
	if !probe.Failed() {
		t.Error("CheckNames passed a name the trace does not hold")
	}
}
