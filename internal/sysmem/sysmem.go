// Package sysmem tells how much memory the machine has, so that a size
// given on the command line that cannot fit is refused before anything is
// allocated, instead of ending the process out of memory.
package sysmem

// Total is the machine's physical memory in bytes, 0 where it cannot be
// read (then no size is refused for it).
func Total() int64 { return total() }

// Fits reports whether need bytes fit in the machine's memory: true where
// the memory is unknown.
func Fits(need int64) bool {
	t := Total()
	return t == 0 || need <= t
}
