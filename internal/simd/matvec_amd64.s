//go:build !noasm

#include "textflag.h"
#include "macros_amd64.h"

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
	HSUMTO(Y0, Y1, Y2, Y3)
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

	HSUMTO(Y0, Y1, Y2, Y3)
	MOVQ    out+48(FP), DI
	VMOVUPD Y0, (DI)
	VZEROUPPER
	RET

// func rank4AVX2(b *float64, ldb int, y *float64, n int, xs *[4]float64)
//
// y[j] += Σ_r xs[r]·b[r·ldb+j] for the 4×n block at b (rows ldb apart);
// n is a positive multiple of 4.
TEXT ·rank4AVX2(SB), NOSPLIT, $0-40
	MOVQ         b+0(FP), R8
	MOVQ         ldb+8(FP), DX
	SHLQ         $3, DX
	LEAQ         (R8)(DX*1), R9
	LEAQ         (R9)(DX*1), R10
	LEAQ         (R10)(DX*1), R11
	MOVQ         y+16(FP), DI
	MOVQ         n+24(FP), CX
	SHLQ         $3, CX
	MOVQ         xs+32(FP), BX
	VBROADCASTSD (BX), Y4
	VBROADCASTSD 8(BX), Y5
	VBROADCASTSD 16(BX), Y6
	VBROADCASTSD 24(BX), Y7
	XORQ         AX, AX

loop:
	VMOVUPD     (DI)(AX*1), Y0
	VMULPD      (R8)(AX*1), Y4, Y1
	VMULPD      (R9)(AX*1), Y5, Y2
	VFMADD231PD (R10)(AX*1), Y6, Y0
	VFMADD231PD (R11)(AX*1), Y7, Y1
	VADDPD      Y2, Y0, Y0
	VADDPD      Y1, Y0, Y0
	VMOVUPD     Y0, (DI)(AX*1)
	ADDQ        $32, AX
	CMPQ        AX, CX
	JLT         loop
	VZEROUPPER
	RET

// func rank4x2AVX2(b *float64, ldb int, c *float64, ldc int, n int, xs *[8]float64)
//
// For the 4×n block at b (rows ldb apart) and two rows of C (ldc apart):
// c[j] += Σ_r xs[r]·b[r·ldb+j] and c[ldc+j] += Σ_r xs[4+r]·b[r·ldb+j].
// Each block of B is loaded once for both rows. n is a positive multiple
// of 4.
TEXT ·rank4x2AVX2(SB), NOSPLIT, $0-48
	MOVQ         b+0(FP), R8
	MOVQ         ldb+8(FP), DX
	SHLQ         $3, DX
	LEAQ         (R8)(DX*1), R9
	LEAQ         (R9)(DX*1), R10
	LEAQ         (R10)(DX*1), R11
	MOVQ         c+16(FP), DI
	MOVQ         ldc+24(FP), SI
	SHLQ         $3, SI
	ADDQ         DI, SI
	MOVQ         n+32(FP), CX
	SHLQ         $3, CX
	MOVQ         xs+40(FP), BX
	VBROADCASTSD (BX), Y8
	VBROADCASTSD 8(BX), Y9
	VBROADCASTSD 16(BX), Y10
	VBROADCASTSD 24(BX), Y11
	VBROADCASTSD 32(BX), Y12
	VBROADCASTSD 40(BX), Y13
	VBROADCASTSD 48(BX), Y14
	VBROADCASTSD 56(BX), Y15
	XORQ         AX, AX

loop:
	VMOVUPD     (R8)(AX*1), Y0
	VMOVUPD     (R9)(AX*1), Y1
	VMOVUPD     (R10)(AX*1), Y2
	VMOVUPD     (R11)(AX*1), Y3
	VMOVUPD     (DI)(AX*1), Y4
	VMOVUPD     (SI)(AX*1), Y5
	VFMADD231PD Y0, Y8, Y4
	VFMADD231PD Y0, Y12, Y5
	VFMADD231PD Y1, Y9, Y4
	VFMADD231PD Y1, Y13, Y5
	VFMADD231PD Y2, Y10, Y4
	VFMADD231PD Y2, Y14, Y5
	VFMADD231PD Y3, Y11, Y4
	VFMADD231PD Y3, Y15, Y5
	VMOVUPD     Y4, (DI)(AX*1)
	VMOVUPD     Y5, (SI)(AX*1)
	ADDQ        $32, AX
	CMPQ        AX, CX
	JLT         loop
	VZEROUPPER
	RET

// SYMROW8 handles row r of symRank8AVX2: the row's vector goes into the
// dot product acc and, scaled by the broadcast xs[r] at off(BX), into Y9.
#define SYMROW8(addr, acc, off) \
	VMOVUPD     addr, Y10 \
	VFMADD231PD Y10, Y8, acc \
	VFMADD231PD off(BX), Y10, Y9

// SYMBODY8 is one step of four columns of symRank8AVX2's loop.
#define SYMBODY8 \
	VMOVUPD (SI), Y8 \
	VMOVUPD (DI), Y9 \
	SYMROW8((R8), Y0, 0) \
	SYMROW8((R8)(DX*1), Y1, 32) \
	SYMROW8((R8)(DX*2), Y2, 64) \
	SYMROW8((R8)(R11*1), Y3, 96) \
	SYMROW8((R9), Y4, 128) \
	SYMROW8((R9)(DX*1), Y5, 160) \
	SYMROW8((R9)(DX*2), Y6, 192) \
	SYMROW8((R9)(R11*1), Y7, 224) \
	VMOVUPD Y9, (DI) \
	ADDQ    $32, R8 \
	ADDQ    $32, R9 \
	ADDQ    $32, SI \
	ADDQ    $32, DI

// func symRank8AVX2(a *float64, lda int, x, y *float64, n int, xs *[8][4]float64, out *[8]float64, pf *float64, pfRows int)
//
// symRank4AVX2 for eight rows: out[r] = Σ_k a[r·lda+k]·x[k] and
// y[k] += Σ_r xs[r][0]·a[r·lda+k], with xs[r] holding xs[r][0] in all four
// lanes. Each vector of y is loaded and stored once per eight rows instead
// of once per four. n is a positive multiple of 4. With pfRows 2 or 4,
// every other step (one line, eight columns) prefetches into L2 that
// line of the pfRows rows (lda apart) from pf, as symRank8AVX512 does.
TEXT ·symRank8AVX2(SB), NOSPLIT, $0-72
	MOVQ   a+0(FP), R8
	MOVQ   lda+8(FP), DX
	SHLQ   $3, DX
	LEAQ   (DX)(DX*2), R11 // 3·lda bytes
	LEAQ   (R8)(DX*4), R9  // row 4
	MOVQ   x+16(FP), SI
	MOVQ   y+24(FP), DI
	MOVQ   n+32(FP), CX
	MOVQ   xs+40(FP), BX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

	MOVQ pf+56(FP), R12
	MOVQ pfRows+64(FP), R13
	CMPQ R13, $2
	JEQ  prefetch2
	CMPQ R13, $4
	JEQ  prefetch4

loop:
	SYMBODY8
	SUBQ $4, CX
	JNZ  loop
	JMP  done

	// n is a multiple of 4, not of 8: the prefetching loops take eight
	// columns a step while at least eight remain, then the plain loop
	// finishes.
prefetch2:
	CMPQ       CX, $8
	JLT        loop
	PREFETCHROWS2
	SYMBODY8
	SYMBODY8
	SUBQ       $8, CX
	JNZ        prefetch2
	JMP        done

prefetch4:
	CMPQ       CX, $8
	JLT        loop
	PREFETCHROWS4
	SYMBODY8
	SYMBODY8
	SUBQ       $8, CX
	JNZ        prefetch4

done:
	MOVQ out+48(FP), AX
	HSUMTO(Y0, Y1, Y2, Y3)
	VMOVUPD Y0, (AX)
	VMOVAPD Y4, Y0
	VMOVAPD Y5, Y1
	VMOVAPD Y6, Y2
	VMOVAPD Y7, Y3
	HSUMTO(Y0, Y1, Y2, Y3)
	VMOVUPD Y0, 32(AX)
	VZEROUPPER
	RET
