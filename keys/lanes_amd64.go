//go:build amd64 && !purego

package keys

//go:generate go run blake2b8_gen.go

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useLanes says blockHash8 can run: it needs AVX-512F.
var useLanes = cpu.X86.HasAVX512F

// blockHash8 hashes one block of eight chains, one per lane: for lane k,
// BLAKE2b-16(parents[.][k] ‖ the window tokens at lanes[k]), written back
// into parents. h is scratch. compressions is ceil((2+window)/16).
//
//go:noescape
func blockHash8(lanes *[8]unsafe.Pointer, parents *[2][8]uint64, h *[8][8]uint64, window, compressions uint64)
