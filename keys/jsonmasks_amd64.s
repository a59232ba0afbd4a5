//go:build amd64 && !purego

#include "textflag.h"

// func classifyAVX2(out *byteClasses, data *byte, blocks int)
//
// For each 64-byte block at data, writes the four masks of a byteClasses
// (digit, zero, comma, space: bit k for byte k) to out, 32 bytes apart.
// Each class is one compare per 32 bytes and a VPMOVMSKB.
TEXT ·classifyAVX2(SB), NOSPLIT, $0-24
	MOVQ out+0(FP), DI
	MOVQ data+8(FP), SI
	MOVQ blocks+16(FP), CX
	TESTQ CX, CX
	JLE  done
	MOVL $0x30, AX // '0'
	MOVQ AX, X0
	VPBROADCASTB X0, Y0
	MOVL $0x09, AX
	MOVQ AX, X1
	VPBROADCASTB X1, Y1
	MOVL $0x2c, AX // ','
	MOVQ AX, X2
	VPBROADCASTB X2, Y2
	MOVL $0x20, AX // ' '
	MOVQ AX, X3
	VPBROADCASTB X3, Y3

loop:
	VMOVDQU (SI), Y4
	VMOVDQU 32(SI), Y5

	// digit: byte - '0' <= 9, unsigned
	VPSUBB    Y0, Y4, Y6
	VPMINUB   Y1, Y6, Y7
	VPCMPEQB  Y7, Y6, Y6
	VPSUBB    Y0, Y5, Y7
	VPMINUB   Y1, Y7, Y8
	VPCMPEQB  Y8, Y7, Y7
	VPMOVMSKB Y6, AX
	VPMOVMSKB Y7, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	MOVQ      AX, 0(DI)

	// zero: byte == '0'
	VPCMPEQB  Y0, Y4, Y6
	VPCMPEQB  Y0, Y5, Y7
	VPMOVMSKB Y6, AX
	VPMOVMSKB Y7, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	MOVQ      AX, 8(DI)

	// comma: byte == ','
	VPCMPEQB  Y2, Y4, Y6
	VPCMPEQB  Y2, Y5, Y7
	VPMOVMSKB Y6, AX
	VPMOVMSKB Y7, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	MOVQ      AX, 16(DI)

	// space: byte == ' '
	VPCMPEQB  Y3, Y4, Y6
	VPCMPEQB  Y3, Y5, Y7
	VPMOVMSKB Y6, AX
	VPMOVMSKB Y7, BX
	SHLQ      $32, BX
	ORQ       BX, AX
	MOVQ      AX, 24(DI)

	ADDQ $64, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER

done:
	RET

// func convertTokensBMI2(out *int64, text *byte, starts, commas uint64)
//
// For each bit of commas, with the next bit of starts as its token's
// first byte: out[j] = the value of the digits text[start:comma], by the
// SWAR conversion of digitsValue.
TEXT ·convertTokensBMI2(SB), NOSPLIT, $0-32
	MOVQ  out+0(FP), DI
	MOVQ  text+8(FP), SI
	MOVQ  starts+16(FP), R8
	MOVQ  commas+24(FP), R9
	TESTQ R9, R9
	JZ    converted
	MOVQ  $0xcfcfcfcfcfcfcfd0, R10 // -asciiZero
	MOVQ  $0x000000ff000000ff, R11
	MOVQ  $0x000f424000000064, R12 // 100 + 1000000<<32
	MOVQ  $0x0000271000000001, R13 // 1 + 10000<<32

token:
	TZCNTQ R8, AX // start
	BLSRQ  R8, R8
	TZCNTQ R9, BX // comma
	BLSRQ  R9, R9
	MOVQ   (SI)(AX*1), DX
	SUBQ   AX, BX // digits n
	SHLQ   $3, BX
	NEGQ   BX     // SHLX shifts by -8n mod 64 = 64-8n
	ADDQ   R10, DX
	SHLXQ  BX, DX, DX // the digits at the top, zeros below

	// pairs: v*10 + v>>8
	LEAQ (DX)(DX*4), CX
	ADDQ CX, CX
	SHRQ $8, DX
	ADDQ CX, DX

	// fours and the whole: (v&m)*mul100 + (v>>16&m)*mul1, >> 32
	MOVQ  DX, CX
	ANDQ  R11, CX
	IMULQ R12, CX
	SHRQ  $16, DX
	ANDQ  R11, DX
	IMULQ R13, DX
	ADDQ  CX, DX
	SHRQ  $32, DX
	MOVQ  DX, (DI)
	ADDQ  $8, DI
	TESTQ R9, R9
	JNZ   token

converted:
	RET
