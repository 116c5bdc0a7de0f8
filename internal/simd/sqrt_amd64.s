//go:build !noasm

#include "textflag.h"

// func scaledSqrtAVX2(dst, x *float64, n int, a float64)
//
// dst[i] = a·√max(x[i], 0) for i < n, as scaledSqrtGeneric; n is a positive
// multiple of 16. VMAXPD returns its second source (x) when either is NaN
// and when both are zeros, so NaN and −0 pass through as in the generic
// loop. VSQRTPD and VMULPD round correctly, as math.Sqrt and * do.
TEXT ·scaledSqrtAVX2(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD a+24(FP), Y15
	VXORPD       Y14, Y14, Y14

loop:
	VMAXPD  (SI), Y14, Y0
	VMAXPD  32(SI), Y14, Y1
	VMAXPD  64(SI), Y14, Y2
	VMAXPD  96(SI), Y14, Y3
	VSQRTPD Y0, Y0
	VSQRTPD Y1, Y1
	VSQRTPD Y2, Y2
	VSQRTPD Y3, Y3
	VMULPD  Y15, Y0, Y0
	VMULPD  Y15, Y1, Y1
	VMULPD  Y15, Y2, Y2
	VMULPD  Y15, Y3, Y3
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ    $128, SI
	ADDQ    $128, DI
	SUBQ    $16, CX
	JNZ     loop

	VZEROUPPER
	RET
