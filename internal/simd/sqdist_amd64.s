//go:build !noasm

#include "textflag.h"

// func sqDistAVX2(dst, xt *float64, ld int, xi *float64, d, n int)
//
// dst[j] = Σ_k (xt[k·ld+j] − xi[k])² for j < n, summing k in order with
// FMA, bit for bit as sqDistGeneric. n is a positive multiple of 4, d ≥ 1.
// Sixteen columns at a time keep four independent FMA chains in flight.
TEXT ·sqDistAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ xt+8(FP), SI
	MOVQ ld+16(FP), DX
	SHLQ $3, DX
	MOVQ xi+24(FP), BX
	MOVQ d+32(FP), CX
	MOVQ n+40(FP), AX

loop16:
	CMPQ   AX, $16
	JLT    loop4
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ   SI, R9
	MOVQ   BX, R10
	MOVQ   CX, R11

k16:
	VBROADCASTSD (R10), Y4
	VMOVUPD      (R9), Y5
	VMOVUPD      32(R9), Y6
	VMOVUPD      64(R9), Y7
	VMOVUPD      96(R9), Y8
	VSUBPD       Y4, Y5, Y5
	VSUBPD       Y4, Y6, Y6
	VSUBPD       Y4, Y7, Y7
	VSUBPD       Y4, Y8, Y8
	VFMADD231PD  Y5, Y5, Y0
	VFMADD231PD  Y6, Y6, Y1
	VFMADD231PD  Y7, Y7, Y2
	VFMADD231PD  Y8, Y8, Y3
	ADDQ         DX, R9
	ADDQ         $8, R10
	DECQ         R11
	JNZ          k16

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ    $128, DI
	ADDQ    $128, SI
	SUBQ    $16, AX
	JMP     loop16

loop4:
	CMPQ   AX, $4
	JLT    done
	VXORPD Y0, Y0, Y0
	MOVQ   SI, R9
	MOVQ   BX, R10
	MOVQ   CX, R11

k4:
	VBROADCASTSD (R10), Y4
	VMOVUPD      (R9), Y5
	VSUBPD       Y4, Y5, Y5
	VFMADD231PD  Y5, Y5, Y0
	ADDQ         DX, R9
	ADDQ         $8, R10
	DECQ         R11
	JNZ          k4

	VMOVUPD Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	SUBQ    $4, AX
	JMP     loop4

done:
	VZEROUPPER
	RET
