//go:build !noasm

#include "textflag.h"
#include "macros_amd64.h"

// SYMROWZ handles row r: the row's vector goes into the dot product acc
// and, scaled by xs[r][0] broadcast from off(BX), into the column sum ysum.
#define SYMROWZ(addr, acc, off, ysum) \
	VMOVUPD          addr, Z10 \
	VFMADD231PD      Z10, Z8, acc \
	VFMADD231PD.BCST off(BX), Z10, ysum

// SYMBODYZ is one step of eight columns of symRank8AVX512's loop.
#define SYMBODYZ \
	VMOVUPD (SI), Z8 \
	VMOVUPD (DI), Z9 \
	VPXORQ  Z11, Z11, Z11 \
	SYMROWZ((R8), Z0, 0, Z9) \
	SYMROWZ((R9), Z4, 128, Z11) \
	SYMROWZ((R8)(DX*1), Z1, 32, Z9) \
	SYMROWZ((R9)(DX*1), Z5, 160, Z11) \
	SYMROWZ((R8)(DX*2), Z2, 64, Z9) \
	SYMROWZ((R9)(DX*2), Z6, 192, Z11) \
	SYMROWZ((R8)(R11*1), Z3, 96, Z9) \
	SYMROWZ((R9)(R11*1), Z7, 224, Z11) \
	VADDPD  Z11, Z9, Z9 \
	VMOVUPD Z9, (DI) \
	ADDQ    $64, R8 \
	ADDQ    $64, R9 \
	ADDQ    $64, SI \
	ADDQ    $64, DI

// func symRank8AVX512(a *float64, lda int, x, y *float64, n int, xs *[8][4]float64, out *[8]float64, pf *float64, pfRows int)
//
// symRank8AVX2 with eight lanes; n is a positive multiple of 8. The column
// sums of rows 0–3 and 4–7 run in two chains, added before y is stored.
// With pfRows 2 or 4, each step also prefetches into L2 the line at its
// own column offset of the pfRows rows (lda apart) from pf: SymvBlock has
// each vector's pass fetch a share of the block it reads next.
TEXT ·symRank8AVX512(SB), NOSPLIT, $0-72
	MOVQ   a+0(FP), R8
	MOVQ   lda+8(FP), DX
	SHLQ   $3, DX
	LEAQ   (DX)(DX*2), R11 // 3·lda bytes
	LEAQ   (R8)(DX*4), R9  // row 4
	MOVQ   x+16(FP), SI
	MOVQ   y+24(FP), DI
	MOVQ   n+32(FP), CX
	MOVQ   xs+40(FP), BX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7

	MOVQ pf+56(FP), R12
	MOVQ pfRows+64(FP), R13
	CMPQ R13, $2
	JEQ  prefetch2
	CMPQ R13, $4
	JEQ  prefetch4

loop:
	SYMBODYZ
	SUBQ $8, CX
	JNZ  loop
	JMP  done

prefetch2:
	PREFETCHROWS2
	SYMBODYZ
	SUBQ       $8, CX
	JNZ        prefetch2
	JMP        done

prefetch4:
	PREFETCHROWS4
	SYMBODYZ
	SUBQ       $8, CX
	JNZ        prefetch4

done:

	FOLDZ(Z0, Y0)
	FOLDZ(Z1, Y1)
	FOLDZ(Z2, Y2)
	FOLDZ(Z3, Y3)
	FOLDZ(Z4, Y4)
	FOLDZ(Z5, Y5)
	FOLDZ(Z6, Y6)
	FOLDZ(Z7, Y7)
	MOVQ    out+48(FP), AX
	HSUMTO(Y0, Y1, Y2, Y3)
	VMOVUPD Y0, (AX)
	HSUMTO(Y4, Y5, Y6, Y7)
	VMOVUPD Y4, 32(AX)
	VZEROUPPER
	RET

// SYMROW2Z handles row r of symRank8x2AVX512: the row's vector goes into
// both vectors' dot products and, scaled by each one's xs[r][0], into
// both column sums.
#define SYMROW2Z(addr, acc0, acc1, off, ysum0, ysum1) \
	VMOVUPD          addr, Z10 \
	VFMADD231PD      Z10, Z8, acc0 \
	VFMADD231PD      Z10, Z21, acc1 \
	VFMADD231PD.BCST off(BX), Z10, ysum0 \
	VFMADD231PD.BCST 256+off(BX), Z10, ysum1

// SYMBODY2Z is one step of eight columns of symRank8x2AVX512's loop.
#define SYMBODY2Z \
	VMOVUPD (SI), Z8 \
	VMOVUPD (AX), Z21 \
	VMOVUPD (DI), Z9 \
	VMOVUPD (R10), Z22 \
	VPXORQ  Z11, Z11, Z11 \
	VPXORQ  Z23, Z23, Z23 \
	SYMROW2Z((R8), Z0, Z12, 0, Z9, Z22) \
	SYMROW2Z((R9), Z4, Z17, 128, Z11, Z23) \
	SYMROW2Z((R8)(DX*1), Z1, Z13, 32, Z9, Z22) \
	SYMROW2Z((R9)(DX*1), Z5, Z18, 160, Z11, Z23) \
	SYMROW2Z((R8)(DX*2), Z2, Z14, 64, Z9, Z22) \
	SYMROW2Z((R9)(DX*2), Z6, Z19, 192, Z11, Z23) \
	SYMROW2Z((R8)(R11*1), Z3, Z15, 96, Z9, Z22) \
	SYMROW2Z((R9)(R11*1), Z7, Z20, 224, Z11, Z23) \
	VADDPD  Z11, Z9, Z9 \
	VADDPD  Z23, Z22, Z22 \
	VMOVUPD Z9, (DI) \
	VMOVUPD Z22, (R10) \
	ADDQ    $64, R8 \
	ADDQ    $64, R9 \
	ADDQ    $64, SI \
	ADDQ    $64, AX \
	ADDQ    $64, DI \
	ADDQ    $64, R10

// FOLDTO sets Y to the sum of the two halves of the 8-lane Z, whose lower
// half is L, using Y16 as scratch (Z may be a register only EVEX reaches).
#define FOLDTO(Z, L, Y) \
	VEXTRACTF64X4 $1, Z, Y16 \
	VADDPD        Y16, L, Y

// func symRank8x2AVX512(a *float64, lda int, x0, y0, x1, y1 *float64, n int, xs *[2][8][4]float64, out *[2][8]float64, pf *float64, pfRows int)
//
// symRank8AVX512 for two vectors at once, (x0, y0) with xs[0] and out[0]
// and (x1, y1) with xs[1] and out[1]: each line of the eight rows loaded
// feeds four multiply–adds instead of two, halving the loads per
// multiply–add, which with one vector compete with the multiply–adds.
// pfRows may also be 8, for a single pass that prefetches the whole block.
TEXT ·symRank8x2AVX512(SB), NOSPLIT, $0-88
	MOVQ   a+0(FP), R8
	MOVQ   lda+8(FP), DX
	SHLQ   $3, DX
	LEAQ   (DX)(DX*2), R11 // 3·lda bytes
	LEAQ   (R8)(DX*4), R9  // row 4
	MOVQ   x0+16(FP), SI
	MOVQ   y0+24(FP), DI
	MOVQ   x1+32(FP), AX
	MOVQ   y1+40(FP), R10
	MOVQ   n+48(FP), CX
	MOVQ   xs+56(FP), BX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	VPXORQ Z14, Z14, Z14
	VPXORQ Z15, Z15, Z15
	VPXORQ Z17, Z17, Z17
	VPXORQ Z18, Z18, Z18
	VPXORQ Z19, Z19, Z19
	VPXORQ Z20, Z20, Z20

	MOVQ pf+72(FP), R12
	MOVQ pfRows+80(FP), R13
	CMPQ R13, $2
	JEQ  prefetch2
	CMPQ R13, $4
	JEQ  prefetch4
	CMPQ R13, $8
	JEQ  prefetch8

loop:
	SYMBODY2Z
	SUBQ $8, CX
	JNZ  loop
	JMP  done

prefetch2:
	PREFETCHROWS2
	SYMBODY2Z
	SUBQ       $8, CX
	JNZ        prefetch2
	JMP        done

prefetch4:
	PREFETCHROWS4
	SYMBODY2Z
	SUBQ       $8, CX
	JNZ        prefetch4
	JMP        done

prefetch8:
	PREFETCHROWS8
	SYMBODY2Z
	SUBQ       $8, CX
	JNZ        prefetch8

done:
	FOLDZ(Z0, Y0)
	FOLDZ(Z1, Y1)
	FOLDZ(Z2, Y2)
	FOLDZ(Z3, Y3)
	FOLDZ(Z4, Y4)
	FOLDZ(Z5, Y5)
	FOLDZ(Z6, Y6)
	FOLDZ(Z7, Y7)
	MOVQ    out+64(FP), AX
	HSUMTO(Y0, Y1, Y2, Y3)
	VMOVUPD Y0, (AX)
	HSUMTO(Y4, Y5, Y6, Y7)
	VMOVUPD Y4, 32(AX)
	FOLDTO(Z12, Y12, Y0)
	FOLDTO(Z13, Y13, Y1)
	FOLDTO(Z14, Y14, Y2)
	FOLDTO(Z15, Y15, Y3)
	FOLDTO(Z17, Y17, Y4)
	FOLDTO(Z18, Y18, Y5)
	FOLDTO(Z19, Y19, Y6)
	FOLDTO(Z20, Y20, Y7)
	HSUMTO(Y0, Y1, Y2, Y3)
	VMOVUPD Y0, 64(AX)
	HSUMTO(Y4, Y5, Y6, Y7)
	VMOVUPD Y4, 96(AX)
	VZEROUPPER
	RET
