//go:build amd64 && !purego

#include "textflag.h"

// func copyStreaming(list *piece, count int)
//
// Makes count copies of list (dst, src, n: n bytes, a positive multiple
// of 64, dst 16-byte aligned) with non-temporal stores, then fences them
// once.
TEXT ·copyStreaming(SB), NOSPLIT, $0-16
	MOVQ list+0(FP), R8
	MOVQ count+8(FP), R9

next:
	MOVQ 0(R8), DI
	MOVQ 8(R8), SI
	MOVQ 16(R8), CX

loop:
	MOVOU  0(SI), X0
	MOVOU  16(SI), X1
	MOVOU  32(SI), X2
	MOVOU  48(SI), X3
	MOVNTO X0, 0(DI)
	MOVNTO X1, 16(DI)
	MOVNTO X2, 32(DI)
	MOVNTO X3, 48(DI)
	ADDQ   $64, SI
	ADDQ   $64, DI
	SUBQ   $64, CX
	JNZ    loop

	ADDQ $24, R8
	DECQ R9
	JNZ  next
	SFENCE
	RET
