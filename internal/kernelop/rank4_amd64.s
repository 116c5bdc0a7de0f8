//go:build !noasm

#include "textflag.h"

// HSUM leaves the sum of the four lanes of Y in the low lane of X.
#define HSUM(Y, X) \
	VEXTRACTF128 $1, Y, X14 \
	VADDPD       X14, X, X  \
	VHADDPD      X, X, X

// func rank4F32AVX2(a0, a1, a2, a3 *float32, x, y *float64, m int, x4 *[4]float64, s *[4]float64)
//
// As rank4Generic over m columns, m a positive multiple of 4: four
// float32 entries of each row widened to float64 (VCVTPS2PD) per step,
// the row sums in four vector accumulators, y updated in place.
TEXT ·rank4F32AVX2(SB), NOSPLIT, $0-72
	MOVQ a0+0(FP), R8
	MOVQ a1+8(FP), R9
	MOVQ a2+16(FP), R10
	MOVQ a3+24(FP), R11
	MOVQ x+32(FP), SI
	MOVQ y+40(FP), DI
	MOVQ m+48(FP), CX
	MOVQ x4+56(FP), AX
	MOVQ s+64(FP), DX
	VBROADCASTSD 0(AX), Y4
	VBROADCASTSD 8(AX), Y5
	VBROADCASTSD 16(AX), Y6
	VBROADCASTSD 24(AX), Y7
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ   BX, BX

loop:
	// The mirror update y += Σ x_r·a_r is two independent pairs summed,
	// not one chain of four dependent FMAs: iterations then overlap, and
	// only the row sums Y0..Y3 carry a dependency from one to the next.
	VMOVUPD     (SI)(BX*8), Y8
	VCVTPS2PD   (R8)(BX*4), Y10
	VCVTPS2PD   (R9)(BX*4), Y11
	VCVTPS2PD   (R10)(BX*4), Y12
	VCVTPS2PD   (R11)(BX*4), Y13
	VFMADD231PD Y8, Y10, Y0
	VFMADD231PD Y8, Y11, Y1
	VFMADD231PD Y8, Y12, Y2
	VFMADD231PD Y8, Y13, Y3
	VMULPD      Y4, Y10, Y9
	VMULPD      Y6, Y12, Y15
	VFMADD231PD Y5, Y11, Y9
	VFMADD231PD Y7, Y13, Y15
	VADDPD      (DI)(BX*8), Y9, Y9
	VADDPD      Y15, Y9, Y9
	VMOVUPD     Y9, (DI)(BX*8)
	ADDQ        $4, BX
	CMPQ        BX, CX
	JLT         loop

	HSUM(Y0, X0)
	HSUM(Y1, X1)
	HSUM(Y2, X2)
	HSUM(Y3, X3)
	VMOVSD X0, 0(DX)
	VMOVSD X1, 8(DX)
	VMOVSD X2, 16(DX)
	VMOVSD X3, 24(DX)
	VZEROUPPER
	RET
