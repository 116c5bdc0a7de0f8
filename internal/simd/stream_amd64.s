//go:build !noasm

#include "textflag.h"

// func streamAVX2(dst, src *float64, n int)
//
// Copies n float64s with non-temporal stores; dst is 32-byte aligned and
// n a positive multiple of 4.
TEXT ·streamAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

loop8:
	CMPQ     CX, $8
	JLT      tail4
	VMOVUPD  (SI), Y0
	VMOVUPD  32(SI), Y1
	VMOVNTPD Y0, (DI)
	VMOVNTPD Y1, 32(DI)
	ADDQ     $64, SI
	ADDQ     $64, DI
	SUBQ     $8, CX
	JMP      loop8

tail4:
	CMPQ     CX, $4
	JLT      done
	VMOVUPD  (SI), Y0
	VMOVNTPD Y0, (DI)

done:
	VZEROUPPER
	RET

// func sfence()
TEXT ·sfence(SB), NOSPLIT, $0-0
	SFENCE
	RET
