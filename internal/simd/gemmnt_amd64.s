//go:build !noasm

#include "textflag.h"
#include "macros_amd64.h"

// DOTCOL multiplies the vector of row q of B at addr with the three rows
// of A held in Y12–Y14 into the accumulators of column q.
#define DOTCOL(addr, acc0, acc1, acc2) \
	VMOVUPD     addr, Y15 \
	VFMADD231PD Y12, Y15, acc0 \
	VFMADD231PD Y13, Y15, acc1 \
	VFMADD231PD Y14, Y15, acc2

// func dot3x4AVX2(a *float64, lda int, b *float64, ldb int, n int, out *[12]float64)
//
// out[4r+q] = Σ_{k<n} a[r·lda+k]·b[q·ldb+k] for r < 3, q < 4: the twelve
// dot products of three rows of A with four rows of B, each vector of A
// and of B loaded once for all of them. n is a positive multiple of 4.
TEXT ·dot3x4AVX2(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), R8
	MOVQ lda+8(FP), DX
	SHLQ $3, DX
	LEAQ (R8)(DX*1), R9
	LEAQ (R9)(DX*1), R10
	MOVQ b+16(FP), R11
	MOVQ ldb+24(FP), DX
	SHLQ $3, DX
	LEAQ (R11)(DX*1), R12
	LEAQ (R12)(DX*1), R13
	LEAQ (R13)(DX*1), BX
	MOVQ n+32(FP), CX
	SHLQ $3, CX
	XORQ AX, AX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11

loop:
	VMOVUPD (R8)(AX*1), Y12
	VMOVUPD (R9)(AX*1), Y13
	VMOVUPD (R10)(AX*1), Y14
	DOTCOL((R11)(AX*1), Y0, Y4, Y8)
	DOTCOL((R12)(AX*1), Y1, Y5, Y9)
	DOTCOL((R13)(AX*1), Y2, Y6, Y10)
	DOTCOL((BX)(AX*1), Y3, Y7, Y11)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     loop

	MOVQ    out+40(FP), DI
	HSUMTO(Y0, Y1, Y2, Y3)
	VMOVUPD Y0, (DI)
	HSUMTO(Y4, Y5, Y6, Y7)
	VMOVUPD Y4, 32(DI)
	HSUMTO(Y8, Y9, Y10, Y11)
	VMOVUPD Y8, 64(DI)
	VZEROUPPER
	RET

// DOTCOLZ is DOTCOL with 8-lane registers: A's rows in Z12–Z14.
#define DOTCOLZ(addr, acc0, acc1, acc2) \
	VMOVUPD     addr, Z15 \
	VFMADD231PD Z12, Z15, acc0 \
	VFMADD231PD Z13, Z15, acc1 \
	VFMADD231PD Z14, Z15, acc2

// func dot3x4AVX512(a *float64, lda int, b *float64, ldb int, n int, out *[12]float64)
//
// dot3x4AVX2 with AVX-512 vectors; n is a positive multiple of 8.
TEXT ·dot3x4AVX512(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), R8
	MOVQ lda+8(FP), DX
	SHLQ $3, DX
	LEAQ (R8)(DX*1), R9
	LEAQ (R9)(DX*1), R10
	MOVQ b+16(FP), R11
	MOVQ ldb+24(FP), DX
	SHLQ $3, DX
	LEAQ (R11)(DX*1), R12
	LEAQ (R12)(DX*1), R13
	LEAQ (R13)(DX*1), BX
	MOVQ n+32(FP), CX
	SHLQ $3, CX
	XORQ AX, AX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11

loopz:
	VMOVUPD (R8)(AX*1), Z12
	VMOVUPD (R9)(AX*1), Z13
	VMOVUPD (R10)(AX*1), Z14
	DOTCOLZ((R11)(AX*1), Z0, Z4, Z8)
	DOTCOLZ((R12)(AX*1), Z1, Z5, Z9)
	DOTCOLZ((R13)(AX*1), Z2, Z6, Z10)
	DOTCOLZ((BX)(AX*1), Z3, Z7, Z11)
	ADDQ    $64, AX
	CMPQ    AX, CX
	JLT     loopz

	FOLDZ(Z0, Y0)
	FOLDZ(Z1, Y1)
	FOLDZ(Z2, Y2)
	FOLDZ(Z3, Y3)
	FOLDZ(Z4, Y4)
	FOLDZ(Z5, Y5)
	FOLDZ(Z6, Y6)
	FOLDZ(Z7, Y7)
	FOLDZ(Z8, Y8)
	FOLDZ(Z9, Y9)
	FOLDZ(Z10, Y10)
	FOLDZ(Z11, Y11)
	MOVQ    out+40(FP), DI
	HSUMTO(Y0, Y1, Y2, Y3)
	VMOVUPD Y0, (DI)
	HSUMTO(Y4, Y5, Y6, Y7)
	VMOVUPD Y4, 32(DI)
	HSUMTO(Y8, Y9, Y10, Y11)
	VMOVUPD Y8, 64(DI)
	VZEROUPPER
	RET
