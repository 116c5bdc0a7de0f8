//go:build !noasm

#include "textflag.h"

// TRANSPOSE4 transposes the 4×4 block in registers a, b, c, d (rows) in
// place, using t0–t3 as scratch.
#define TRANSPOSE4(a, b, c, d, t0, t1, t2, t3) \
	VUNPCKLPD  b, a, t0 \
	VUNPCKHPD  b, a, t1 \
	VUNPCKLPD  d, c, t2 \
	VUNPCKHPD  d, c, t3 \
	VPERM2F128 $0x20, t2, t0, a \
	VPERM2F128 $0x20, t3, t1, b \
	VPERM2F128 $0x31, t2, t0, c \
	VPERM2F128 $0x31, t3, t1, d

// func transpose8AVX2(dst *float64, ldd int, src *float64, lds int, w int)
//
// Transposes the 8×w strip at src (rows lds apart) into the w×8 strip at
// dst (rows ldd apart); w is a positive multiple of 4. Each output row
// receives 64 contiguous bytes, a whole cache line when dst is aligned.
TEXT ·transpose8AVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), DX
	SHLQ $3, DX
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), BX
	SHLQ $3, BX
	MOVQ w+32(FP), CX
	LEAQ (BX)(BX*2), R8 // 3·lds bytes
	LEAQ (SI)(BX*4), R9 // row 4 of the strip
	LEAQ (DX)(DX*2), R11 // 3·ldd bytes

loop:
	VMOVUPD (SI), Y0
	VMOVUPD (SI)(BX*1), Y1
	VMOVUPD (SI)(BX*2), Y2
	VMOVUPD (SI)(R8*1), Y3
	VMOVUPD (R9), Y4
	VMOVUPD (R9)(BX*1), Y5
	VMOVUPD (R9)(BX*2), Y6
	VMOVUPD (R9)(R8*1), Y7
	TRANSPOSE4(Y0, Y1, Y2, Y3, Y8, Y9, Y10, Y11)
	TRANSPOSE4(Y4, Y5, Y6, Y7, Y12, Y13, Y14, Y15)
	VMOVUPD Y0, (DI)
	VMOVUPD Y4, 32(DI)
	VMOVUPD Y1, (DI)(DX*1)
	VMOVUPD Y5, 32(DI)(DX*1)
	VMOVUPD Y2, (DI)(DX*2)
	VMOVUPD Y6, 32(DI)(DX*2)
	VMOVUPD Y3, (DI)(R11*1)
	VMOVUPD Y7, 32(DI)(R11*1)
	ADDQ    $32, SI
	ADDQ    $32, R9
	LEAQ    (DI)(DX*4), DI
	SUBQ    $4, CX
	JNZ     loop
	VZEROUPPER
	RET
