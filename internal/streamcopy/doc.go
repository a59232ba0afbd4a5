// Package streamcopy copies bytes that will not be read again soon (a
// value put into a pool, a part of a page copied into its reserved place)
// past the caches: on amd64, whole cache lines of a destination aligned
// to one are written with non-temporal stores, which fill the lines
// without first reading them and spare the caches; elsewhere, and with
// -tags purego, with the built-in copy.
//
// Non-temporal stores are weakly ordered: before anything that makes the
// bytes visible (publishing a value, committing a reservation), a fence
// must wait until they reached memory. A Copier fences once a batch of up
// to 256 KiB instead of once a copy: fenced once a copy, 4 KiB values
// copied at 0.62-0.67 times the rate (docs/benchmarks.md, "Put's non-temporal
// stores fenced once a batch"). Each batch is copied and fenced by one
// assembly call, which cannot be preempted, so every store is fenced on
// the thread that made it before any Go code runs after it.
package streamcopy
