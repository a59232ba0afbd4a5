//go:build amd64 && !purego

package keys

import "golang.org/x/sys/cpu"

// useAVX2 says the assembly of the fast token path can run: it needs
// AVX2, BMI1 and BMI2 (every x86-64 CPU since about 2015 has them).
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasBMI1 && cpu.X86.HasBMI2

// classifyAVX2 is classify for blocks 64-byte blocks at data, 32 bytes
// per AVX2 compare (jsonmasks_amd64.s).
//
//go:noescape
func classifyAVX2(out *byteClasses, data *byte, blocks int)

// convertTokensBMI2 sets out[j] to the value of the j-th token of a
// window, whose digits run from the j-th bit of starts to the j-th bit of
// commas (digitsValue, with TZCNT, BLSR and SHLX). Nothing is bounds
// checked: out must have room for a token per bit of commas, and text 8
// bytes past the last comma (jsonmasks_amd64.s).
//
//go:noescape
func convertTokensBMI2(out *int64, text *byte, starts, commas uint64)
