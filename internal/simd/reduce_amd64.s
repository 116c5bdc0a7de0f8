//go:build !noasm

#include "textflag.h"

// REDUCE sums the four accumulators Y0–Y3 as reduceLanes does and leaves
// the result in X0.
#define REDUCE \
	VADDPD       Y1, Y0, Y0 \
	VADDPD       Y3, Y2, Y2 \
	VADDPD       Y2, Y0, Y0 \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPD       X1, X0, X0 \
	VHADDPD      X0, X0, X0

// func sumAVX2(x *float64, n int) float64
//
// Σ x[i] for i < n in sixteen lanes, as sumGeneric; n is a positive
// multiple of 16.
TEXT ·sumAVX2(SB), NOSPLIT, $0-24
	MOVQ   x+0(FP), SI
	MOVQ   n+8(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop:
	VADDPD (SI), Y0, Y0
	VADDPD 32(SI), Y1, Y1
	VADDPD 64(SI), Y2, Y2
	VADDPD 96(SI), Y3, Y3
	ADDQ   $128, SI
	SUBQ   $16, CX
	JNZ    loop

	REDUCE
	VZEROUPPER
	MOVSD X0, ret+16(FP)
	RET

// func centerRowAVX2(row, mean *float64, n int, c float64) float64
//
// row[j] -= c + mean[j] for j < n, returning Σ row[j]² of the new values
// in sixteen lanes, as centerRowGeneric; n is a positive multiple of 16.
TEXT ·centerRowAVX2(SB), NOSPLIT, $0-40
	MOVQ         row+0(FP), DI
	MOVQ         mean+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD c+24(FP), Y15
	VXORPD       Y0, Y0, Y0
	VXORPD       Y1, Y1, Y1
	VXORPD       Y2, Y2, Y2
	VXORPD       Y3, Y3, Y3

loop:
	VADDPD      (SI), Y15, Y4
	VADDPD      32(SI), Y15, Y5
	VADDPD      64(SI), Y15, Y6
	VADDPD      96(SI), Y15, Y7
	VMOVUPD     (DI), Y8
	VMOVUPD     32(DI), Y9
	VMOVUPD     64(DI), Y10
	VMOVUPD     96(DI), Y11
	VSUBPD      Y4, Y8, Y8
	VSUBPD      Y5, Y9, Y9
	VSUBPD      Y6, Y10, Y10
	VSUBPD      Y7, Y11, Y11
	VMOVUPD     Y8, (DI)
	VMOVUPD     Y9, 32(DI)
	VMOVUPD     Y10, 64(DI)
	VMOVUPD     Y11, 96(DI)
	VFMADD231PD Y8, Y8, Y0
	VFMADD231PD Y9, Y9, Y1
	VFMADD231PD Y10, Y10, Y2
	VFMADD231PD Y11, Y11, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $16, CX
	JNZ         loop

	REDUCE
	VZEROUPPER
	MOVSD X0, ret+32(FP)
	RET
