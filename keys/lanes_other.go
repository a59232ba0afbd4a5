//go:build !amd64 || purego

package keys

import "unsafe"

// useLanes is false: there is no multi-lane block hash on this platform.
var useLanes = false

func blockHash8(*[8]unsafe.Pointer, *[2][8]uint64, *[8][8]uint64, uint64, uint64) {
	panic("keys: blockHash8 is not available on this platform")
}
