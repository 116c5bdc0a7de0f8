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
	PREFETCHT1 (R12)
	PREFETCHT1 (R12)(DX*1)
	ADDQ       $64, R12
	SYMBODYZ
	SUBQ       $8, CX
	JNZ        prefetch2
	JMP        done

prefetch4:
	PREFETCHT1 (R12)
	PREFETCHT1 (R12)(DX*1)
	PREFETCHT1 (R12)(DX*2)
	PREFETCHT1 (R12)(R11*1)
	ADDQ       $64, R12
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
