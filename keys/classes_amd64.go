//go:build amd64 && !purego

package keys

import "golang.org/x/sys/cpu"

// useAVX2 says classifyAVX2 can run.
var useAVX2 = cpu.X86.HasAVX2

// classifyAVX2 is classify for blocks 64-byte blocks at data, 32 bytes
// per AVX2 compare (classes_amd64.s).
//
//go:noescape
func classifyAVX2(out *byteClasses, data *byte, blocks int)
