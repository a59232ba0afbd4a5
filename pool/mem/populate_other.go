//go:build !linux

package mem

// populateArena does nothing where MADV_POPULATE_WRITE does not exist:
// the arena's pages fault in as they are written.
func populateArena([]byte) {}
