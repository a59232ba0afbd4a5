package mem

// recycler keeps up to its capacity of *T between calls, for calls to
// reuse rather than allocate: a call's scratch lists and holds. It is a
// channel, not a sync.Pool, because a collection empties a sync.Pool and
// the first Gets after one take the runtime's lock of all pools. kvctl
// bench collects before each timed transfer, and in execution traces on a
// 16-core H100 virtual machine the copy threads' first store calls of a
// timed transfer parked on that lock: 18 times, about 400 µs each, in six
// staged saves of 4 KiB pages (run 48 of 2026-12-05), in getPutScratch;
// 5 times in a staged load (run 45), in getLeaseScratch
// (docs/benchmarks.md, "Copy helpers keep their threads only while they
// run calls").
type recycler[T any] chan *T

// recycled is how many values a recycler keeps: more than the calls a
// process runs at once (kvctl bench: one per copy thread).
const recycled = 64

// newRecycler returns a recycler that keeps up to recycled values.
func newRecycler[T any]() recycler[T] { return make(recycler[T], recycled) }

// get returns a kept value, or a new one when none is kept.
func (r recycler[T]) get() *T {
	select {
	case v := <-r:
		return v
	default:
		return new(T)
	}
}

// put keeps v for a later get, unless the recycler is full.
func (r recycler[T]) put(v *T) {
	select {
	case r <- v:
	default:
	}
}
