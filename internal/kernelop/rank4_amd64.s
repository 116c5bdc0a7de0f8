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

// HSUMZ leaves the sum of the eight lanes of Z (lower half Y) in the low
// lane of X, using Y15 and X14 as scratch.
#define HSUMZ(Z, Y, X) \
	VEXTRACTF64X4 $1, Z, Y15 \
	VADDPD        Y15, Y, Y  \
	HSUM(Y, X)

// MIRROR4Z adds b0·r0 + b1·r1 + b2·r2 + b3·r3 (the converted rows Z10..Z13)
// to the eight entries of y at addr, as ((y + b0·r0) + b1·r1) + (b2·r2 +
// b3·r3): two chains, so that iterations overlap. Single and paired
// kernels both use it, so a vector's result does not depend on its
// company.
#define MIRROR4Z(addr, b0, b1, b2, b3, t, u) \
	VMOVUPD     addr, t       \
	VFMADD231PD b0, Z10, t    \
	VFMADD231PD b1, Z11, t    \
	VMULPD      b2, Z12, u    \
	VFMADD231PD b3, Z13, u    \
	VADDPD      u, t, t       \
	VMOVUPD     t, addr

// CVT4Z widens eight float32 entries of each of the four rows to float64
// in Z10..Z13.
#define CVT4Z \
	VCVTPS2PD (R8)(BX*4), Z10  \
	VCVTPS2PD (R9)(BX*4), Z11  \
	VCVTPS2PD (R10)(BX*4), Z12 \
	VCVTPS2PD (R11)(BX*4), Z13

// func rank4F32AVX512(a0, a1, a2, a3 *float32, x, y *float64, m int, x4 *[4]float64, s *[4]float64)
//
// rank4F32AVX2 eight columns a step, m a positive multiple of 8.
TEXT ·rank4F32AVX512(SB), NOSPLIT, $0-72
	MOVQ a0+0(FP), R8
	MOVQ a1+8(FP), R9
	MOVQ a2+16(FP), R10
	MOVQ a3+24(FP), R11
	MOVQ x+32(FP), SI
	MOVQ y+40(FP), DI
	MOVQ m+48(FP), CX
	MOVQ x4+56(FP), AX
	MOVQ s+64(FP), DX
	VBROADCASTSD 0(AX), Z16
	VBROADCASTSD 8(AX), Z17
	VBROADCASTSD 16(AX), Z18
	VBROADCASTSD 24(AX), Z19
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	XORQ   BX, BX

loop1:
	CVT4Z
	VMOVUPD     (SI)(BX*8), Z8
	VFMADD231PD Z8, Z10, Z0
	VFMADD231PD Z8, Z11, Z1
	VFMADD231PD Z8, Z12, Z2
	VFMADD231PD Z8, Z13, Z3
	MIRROR4Z((DI)(BX*8), Z16, Z17, Z18, Z19, Z22, Z23)
	ADDQ        $8, BX
	CMPQ        BX, CX
	JLT         loop1

	HSUMZ(Z0, Y0, X0)
	HSUMZ(Z1, Y1, X1)
	HSUMZ(Z2, Y2, X2)
	HSUMZ(Z3, Y3, X3)
	VMOVSD X0, 0(DX)
	VMOVSD X1, 8(DX)
	VMOVSD X2, 16(DX)
	VMOVSD X3, 24(DX)
	VZEROUPPER
	RET

// PF2 and PF4 prefetch into L2 the entries at column BX of two or four
// rows (DX, R13, R14, R15): the share of the next stretch of rows that
// one pass fetches while the rows in hand are served from the cache.
#define PF2 \
	PREFETCHT1 (DX)(BX*4) \
	PREFETCHT1 (R13)(BX*4)

#define PF4 \
	PF2 \
	PREFETCHT1 (R14)(BX*4) \
	PREFETCHT1 (R15)(BX*4)

// BODY2 is one step of eight columns of rank4x2F32AVX512.
#define BODY2 \
	CVT4Z \
	VMOVUPD     (SI)(BX*8), Z8 \
	VMOVUPD     (AX)(BX*8), Z9 \
	VFMADD231PD Z8, Z10, Z0 \
	VFMADD231PD Z8, Z11, Z1 \
	VFMADD231PD Z8, Z12, Z2 \
	VFMADD231PD Z8, Z13, Z3 \
	VFMADD231PD Z9, Z10, Z4 \
	VFMADD231PD Z9, Z11, Z5 \
	VFMADD231PD Z9, Z12, Z6 \
	VFMADD231PD Z9, Z13, Z7 \
	MIRROR4Z((DI)(BX*8), Z16, Z17, Z18, Z19, Z22, Z23) \
	MIRROR4Z((R12)(BX*8), Z20, Z21, Z24, Z25, Z26, Z27) \
	ADDQ        $8, BX \
	CMPQ        BX, CX

// func rank4x2F32AVX512(a0, a1, a2, a3 *float32, x0, y0, x1, y1 *float64, m int, xs *[2][4]float64, s *[2][4]float64, pf *[4]*float32, npf int)
//
// rank4F32AVX512 for two vectors, (x0, y0) with xs[0] and s[0] and (x1,
// y1) with xs[1] and s[1]: the rows are loaded and widened once for both,
// which with one vector a call is as much work as the multiply–adds. npf
// (0, 2 or 4) of the rows pf points to are prefetched along the way
// (PF2, PF4).
TEXT ·rank4x2F32AVX512(SB), NOSPLIT, $0-104
	MOVQ a0+0(FP), R8
	MOVQ a1+8(FP), R9
	MOVQ a2+16(FP), R10
	MOVQ a3+24(FP), R11
	MOVQ x0+32(FP), SI
	MOVQ y0+40(FP), DI
	MOVQ x1+48(FP), AX
	MOVQ y1+56(FP), R12
	MOVQ m+64(FP), CX
	MOVQ xs+72(FP), DX
	VBROADCASTSD 0(DX), Z16
	VBROADCASTSD 8(DX), Z17
	VBROADCASTSD 16(DX), Z18
	VBROADCASTSD 24(DX), Z19
	VBROADCASTSD 32(DX), Z20
	VBROADCASTSD 40(DX), Z21
	VBROADCASTSD 48(DX), Z24
	VBROADCASTSD 56(DX), Z25
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	XORQ   BX, BX

	MOVQ pf+88(FP), DX
	MOVQ 8(DX), R13
	MOVQ 16(DX), R14
	MOVQ 24(DX), R15
	MOVQ 0(DX), DX
	CMPQ npf+96(FP), $2
	JEQ  loop2pf2
	JGT  loop2pf4

loop2:
	BODY2
	JLT loop2
	JMP done2

loop2pf2:
	PF2
	BODY2
	JLT loop2pf2
	JMP done2

loop2pf4:
	PF4
	BODY2
	JLT loop2pf4

done2:
	MOVQ s+80(FP), DX
	HSUMZ(Z0, Y0, X0)
	HSUMZ(Z1, Y1, X1)
	HSUMZ(Z2, Y2, X2)
	HSUMZ(Z3, Y3, X3)
	VMOVSD X0, 0(DX)
	VMOVSD X1, 8(DX)
	VMOVSD X2, 16(DX)
	VMOVSD X3, 24(DX)
	HSUMZ(Z4, Y4, X4)
	HSUMZ(Z5, Y5, X5)
	HSUMZ(Z6, Y6, X6)
	HSUMZ(Z7, Y7, X7)
	VMOVSD X4, 32(DX)
	VMOVSD X5, 40(DX)
	VMOVSD X6, 48(DX)
	VMOVSD X7, 56(DX)
	VZEROUPPER
	RET
