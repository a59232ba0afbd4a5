package stats

import "time"

// cpuSlack is how far the CPU time a thread's clock gives for a span may
// exceed the span's wall time and still be taken as read. One thread
// cannot run longer than the wall time that passed, but on the virtual
// machines kvctl is measured on (2026-12-03: the shared 2-core VM, the
// H200 host) the thread clock now and then runs ahead of the wall clock:
// in 3 million spans of a few microseconds on a locked thread, 73 by more
// than 20 µs, the most by 0.21 ms. A reading further ahead is not the
// thread's over the span: a replay's serve report once gave a phase 1.3 s
// of CPU over 88 ms of wall time, single runs by up to 300 ms.
const cpuSlack = time.Millisecond

// SpanCPU is the CPU time a thread ran over a span of wall time, from its
// clock's readings before and after the span. ok is false when the
// readings cannot both be the thread's over that span: the clock went
// back, or ran ahead of the wall clock by more than cpuSlack.
// The time returned is then the reading's difference held to [0, wall],
// the most the thread can have run, for callers that sum spans and cannot
// leave one out.
func SpanCPU(before, after, wall time.Duration) (cpu time.Duration, ok bool) {
	cpu = after - before
	ok = cpu >= 0 && cpu <= wall+cpuSlack
	if !ok {
		cpu = min(max(cpu, 0), max(wall, 0))
	}
	return cpu, ok
}
