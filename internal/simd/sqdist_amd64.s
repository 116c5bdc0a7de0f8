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

// func sqDistAVX512(dst, xt *float64, ld int, xi *float64, d, n int)
//
// sqDistAVX2 with eight lanes: 32 columns at a time, then 8; n is a
// positive multiple of 8. Bit for bit the same as sqDistGeneric.
TEXT ·sqDistAVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ xt+8(FP), SI
	MOVQ ld+16(FP), DX
	SHLQ $3, DX
	MOVQ xi+24(FP), BX
	MOVQ d+32(FP), CX
	MOVQ n+40(FP), AX

loop32:
	CMPQ   AX, $32
	JLT    loop8
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	MOVQ   SI, R9
	MOVQ   BX, R10
	MOVQ   CX, R11

k32:
	VBROADCASTSD (R10), Z4
	VSUBPD       (R9), Z4, Z5
	VSUBPD       64(R9), Z4, Z6
	VSUBPD       128(R9), Z4, Z7
	VSUBPD       192(R9), Z4, Z8
	VFMADD231PD  Z5, Z5, Z0
	VFMADD231PD  Z6, Z6, Z1
	VFMADD231PD  Z7, Z7, Z2
	VFMADD231PD  Z8, Z8, Z3
	ADDQ         DX, R9
	ADDQ         $8, R10
	DECQ         R11
	JNZ          k32

	VMOVUPD Z0, (DI)
	VMOVUPD Z1, 64(DI)
	VMOVUPD Z2, 128(DI)
	VMOVUPD Z3, 192(DI)
	ADDQ    $256, DI
	ADDQ    $256, SI
	SUBQ    $32, AX
	JMP     loop32

loop8:
	CMPQ   AX, $8
	JLT    donez
	VPXORQ Z0, Z0, Z0
	MOVQ   SI, R9
	MOVQ   BX, R10
	MOVQ   CX, R11

k8:
	VBROADCASTSD (R10), Z4
	VSUBPD       (R9), Z4, Z5
	VFMADD231PD  Z5, Z5, Z0
	ADDQ         DX, R9
	ADDQ         $8, R10
	DECQ         R11
	JNZ          k8

	VMOVUPD Z0, (DI)
	ADDQ    $64, DI
	ADDQ    $64, SI
	SUBQ    $8, AX
	JMP     loop8

donez:
	VZEROUPPER
	RET
