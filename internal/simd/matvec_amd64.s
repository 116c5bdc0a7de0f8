//go:build !noasm

#include "textflag.h"

// Horizontal sums of four accumulators: after it, Y0 = [Σy0, Σy1, Σy2, Σy3].
#define HSUM4 \
	VHADDPD    Y1, Y0, Y0 \
	VHADDPD    Y3, Y2, Y2 \
	VPERM2F128 $0x20, Y2, Y0, Y1 \
	VPERM2F128 $0x31, Y2, Y0, Y3 \
	VADDPD     Y3, Y1, Y0

// func dot4AVX2(a *float64, lda int, x *float64, n int, out *[4]float64)
//
// out[r] = Σ_{k<n} a[r·lda+k]·x[k] for r < 4; n is a positive multiple of 4.
TEXT ·dot4AVX2(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), R8
	MOVQ lda+8(FP), DX
	SHLQ $3, DX
	LEAQ (R8)(DX*1), R9
	LEAQ (R9)(DX*1), R10
	LEAQ (R10)(DX*1), R11
	MOVQ x+16(FP), SI
	MOVQ n+24(FP), CX
	XORQ AX, AX
	SHLQ $3, CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

loop8:
	LEAQ        64(AX), BX
	CMPQ        BX, CX
	JGT         tail4
	VMOVUPD     (SI)(AX*1), Y8
	VMOVUPD     32(SI)(AX*1), Y9
	VFMADD231PD (R8)(AX*1), Y8, Y0
	VFMADD231PD (R9)(AX*1), Y8, Y1
	VFMADD231PD (R10)(AX*1), Y8, Y2
	VFMADD231PD (R11)(AX*1), Y8, Y3
	VFMADD231PD 32(R8)(AX*1), Y9, Y4
	VFMADD231PD 32(R9)(AX*1), Y9, Y5
	VFMADD231PD 32(R10)(AX*1), Y9, Y6
	VFMADD231PD 32(R11)(AX*1), Y9, Y7
	MOVQ        BX, AX
	JMP         loop8

tail4:
	CMPQ        AX, CX
	JGE         reduce
	VMOVUPD     (SI)(AX*1), Y8
	VFMADD231PD (R8)(AX*1), Y8, Y0
	VFMADD231PD (R9)(AX*1), Y8, Y1
	VFMADD231PD (R10)(AX*1), Y8, Y2
	VFMADD231PD (R11)(AX*1), Y8, Y3

reduce:
	VADDPD Y4, Y0, Y0
	VADDPD Y5, Y1, Y1
	VADDPD Y6, Y2, Y2
	VADDPD Y7, Y3, Y3
	HSUM4
	MOVQ    out+32(FP), DI
	VMOVUPD Y0, (DI)
	VZEROUPPER
	RET

// func symRank4AVX2(a *float64, lda int, x, y *float64, n int, xs, out *[4]float64)
//
// For the 4×n block at a (rows lda apart), out[r] = Σ_k a[r·lda+k]·x[k] and
// y[k] += Σ_r xs[r]·a[r·lda+k]: one pass over the block serves both the
// block's rows and, by symmetry, its columns. n is a positive multiple of 4.
TEXT ·symRank4AVX2(SB), NOSPLIT, $0-56
	MOVQ         a+0(FP), R8
	MOVQ         lda+8(FP), DX
	SHLQ         $3, DX
	LEAQ         (R8)(DX*1), R9
	LEAQ         (R9)(DX*1), R10
	LEAQ         (R10)(DX*1), R11
	MOVQ         x+16(FP), SI
	MOVQ         y+24(FP), DI
	MOVQ         n+32(FP), CX
	SHLQ         $3, CX
	MOVQ         xs+40(FP), BX
	VBROADCASTSD (BX), Y4
	VBROADCASTSD 8(BX), Y5
	VBROADCASTSD 16(BX), Y6
	VBROADCASTSD 24(BX), Y7
	XORQ         AX, AX
	VXORPD       Y0, Y0, Y0
	VXORPD       Y1, Y1, Y1
	VXORPD       Y2, Y2, Y2
	VXORPD       Y3, Y3, Y3

loop:
	VMOVUPD     (SI)(AX*1), Y8
	VMOVUPD     (DI)(AX*1), Y9
	VMOVUPD     (R8)(AX*1), Y10
	VMOVUPD     (R9)(AX*1), Y11
	VMOVUPD     (R10)(AX*1), Y12
	VMOVUPD     (R11)(AX*1), Y13
	VFMADD231PD Y10, Y8, Y0
	VFMADD231PD Y11, Y8, Y1
	VFMADD231PD Y12, Y8, Y2
	VFMADD231PD Y13, Y8, Y3
	VFMADD231PD Y10, Y4, Y9
	VFMADD231PD Y11, Y5, Y9
	VFMADD231PD Y12, Y6, Y9
	VFMADD231PD Y13, Y7, Y9
	VMOVUPD     Y9, (DI)(AX*1)
	ADDQ        $32, AX
	CMPQ        AX, CX
	JLT         loop

	HSUM4
	MOVQ    out+48(FP), DI
	VMOVUPD Y0, (DI)
	VZEROUPPER
	RET
