//go:build !noasm

#include "textflag.h"

// expCoef holds 1/k! for k = 13 … 0, each in four lanes: the degree-13
// Taylor polynomial of exp, evaluated by Horner on |r| ≤ ln2/2.
DATA expCoef<>+0(SB)/8, $0x3de6124613a86d09
DATA expCoef<>+8(SB)/8, $0x3de6124613a86d09
DATA expCoef<>+16(SB)/8, $0x3de6124613a86d09
DATA expCoef<>+24(SB)/8, $0x3de6124613a86d09
DATA expCoef<>+32(SB)/8, $0x3e21eed8eff8d898
DATA expCoef<>+40(SB)/8, $0x3e21eed8eff8d898
DATA expCoef<>+48(SB)/8, $0x3e21eed8eff8d898
DATA expCoef<>+56(SB)/8, $0x3e21eed8eff8d898
DATA expCoef<>+64(SB)/8, $0x3e5ae64567f544e4
DATA expCoef<>+72(SB)/8, $0x3e5ae64567f544e4
DATA expCoef<>+80(SB)/8, $0x3e5ae64567f544e4
DATA expCoef<>+88(SB)/8, $0x3e5ae64567f544e4
DATA expCoef<>+96(SB)/8, $0x3e927e4fb7789f5c
DATA expCoef<>+104(SB)/8, $0x3e927e4fb7789f5c
DATA expCoef<>+112(SB)/8, $0x3e927e4fb7789f5c
DATA expCoef<>+120(SB)/8, $0x3e927e4fb7789f5c
DATA expCoef<>+128(SB)/8, $0x3ec71de3a556c734
DATA expCoef<>+136(SB)/8, $0x3ec71de3a556c734
DATA expCoef<>+144(SB)/8, $0x3ec71de3a556c734
DATA expCoef<>+152(SB)/8, $0x3ec71de3a556c734
DATA expCoef<>+160(SB)/8, $0x3efa01a01a01a01a
DATA expCoef<>+168(SB)/8, $0x3efa01a01a01a01a
DATA expCoef<>+176(SB)/8, $0x3efa01a01a01a01a
DATA expCoef<>+184(SB)/8, $0x3efa01a01a01a01a
DATA expCoef<>+192(SB)/8, $0x3f2a01a01a01a01a
DATA expCoef<>+200(SB)/8, $0x3f2a01a01a01a01a
DATA expCoef<>+208(SB)/8, $0x3f2a01a01a01a01a
DATA expCoef<>+216(SB)/8, $0x3f2a01a01a01a01a
DATA expCoef<>+224(SB)/8, $0x3f56c16c16c16c17
DATA expCoef<>+232(SB)/8, $0x3f56c16c16c16c17
DATA expCoef<>+240(SB)/8, $0x3f56c16c16c16c17
DATA expCoef<>+248(SB)/8, $0x3f56c16c16c16c17
DATA expCoef<>+256(SB)/8, $0x3f81111111111111
DATA expCoef<>+264(SB)/8, $0x3f81111111111111
DATA expCoef<>+272(SB)/8, $0x3f81111111111111
DATA expCoef<>+280(SB)/8, $0x3f81111111111111
DATA expCoef<>+288(SB)/8, $0x3fa5555555555555
DATA expCoef<>+296(SB)/8, $0x3fa5555555555555
DATA expCoef<>+304(SB)/8, $0x3fa5555555555555
DATA expCoef<>+312(SB)/8, $0x3fa5555555555555
DATA expCoef<>+320(SB)/8, $0x3fc5555555555555
DATA expCoef<>+328(SB)/8, $0x3fc5555555555555
DATA expCoef<>+336(SB)/8, $0x3fc5555555555555
DATA expCoef<>+344(SB)/8, $0x3fc5555555555555
DATA expCoef<>+352(SB)/8, $0x3fe0000000000000
DATA expCoef<>+360(SB)/8, $0x3fe0000000000000
DATA expCoef<>+368(SB)/8, $0x3fe0000000000000
DATA expCoef<>+376(SB)/8, $0x3fe0000000000000
DATA expCoef<>+384(SB)/8, $0x3ff0000000000000
DATA expCoef<>+392(SB)/8, $0x3ff0000000000000
DATA expCoef<>+400(SB)/8, $0x3ff0000000000000
DATA expCoef<>+408(SB)/8, $0x3ff0000000000000
DATA expCoef<>+416(SB)/8, $0x3ff0000000000000
DATA expCoef<>+424(SB)/8, $0x3ff0000000000000
DATA expCoef<>+432(SB)/8, $0x3ff0000000000000
DATA expCoef<>+440(SB)/8, $0x3ff0000000000000
GLOBL expCoef<>(SB), RODATA|NOPTR, $448

DATA expLo<>+0(SB)/8, $0xc087500000000000
GLOBL expLo<>(SB), RODATA|NOPTR, $8
DATA expHi<>+0(SB)/8, $0x4086300000000000
GLOBL expHi<>(SB), RODATA|NOPTR, $8
DATA expLog2e<>+0(SB)/8, $0x3ff71547652b82fe
GLOBL expLog2e<>(SB), RODATA|NOPTR, $8
DATA expLn2Hi<>+0(SB)/8, $0x3fe62e42fefa39ef
GLOBL expLn2Hi<>(SB), RODATA|NOPTR, $8
DATA expLn2Lo<>+0(SB)/8, $0x3c7abc9e3b39803f
GLOBL expLn2Lo<>(SB), RODATA|NOPTR, $8
DATA expHalf<>+0(SB)/8, $0x3fe0000000000000
GLOBL expHalf<>(SB), RODATA|NOPTR, $8
DATA expMagic<>+0(SB)/8, $0x43300000000003ff
GLOBL expMagic<>(SB), RODATA|NOPTR, $8

// func expAVX2(dst, src *float64, n int, scale float64)
//
// dst[i] = exp(scale·src[i]) for i < n; n is a positive multiple of 4.
// Bit for bit the same as expGeneric, which documents the method.
TEXT ·expAVX2(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD scale+24(FP), Y15
	VBROADCASTSD expLo<>(SB), Y14
	VBROADCASTSD expHi<>(SB), Y13
	VBROADCASTSD expLog2e<>(SB), Y12
	VBROADCASTSD expLn2Hi<>(SB), Y11
	VBROADCASTSD expLn2Lo<>(SB), Y10
	VBROADCASTSD expHalf<>(SB), Y9
	VBROADCASTSD expMagic<>(SB), Y8

loop8:
	CMPQ CX, $8
	JLT  tail4
	VMULPD       0(SI), Y15, Y0
	VMULPD       32(SI), Y15, Y3
	VMAXPD       Y0, Y14, Y0
	VMAXPD       Y3, Y14, Y3
	VMINPD       Y0, Y13, Y0
	VMINPD       Y3, Y13, Y3
	VMULPD       Y0, Y12, Y1
	VMULPD       Y3, Y12, Y4
	VROUNDPD     $0, Y1, Y1
	VROUNDPD     $0, Y4, Y4
	VFNMADD231PD Y11, Y1, Y0
	VFNMADD231PD Y11, Y4, Y3
	VFNMADD231PD Y10, Y1, Y0
	VFNMADD231PD Y10, Y4, Y3
	VMOVUPD      expCoef<>+0(SB), Y2
	VMOVUPD      expCoef<>+0(SB), Y5
	VFMADD213PD  expCoef<>+32(SB), Y0, Y2
	VFMADD213PD  expCoef<>+32(SB), Y3, Y5
	VFMADD213PD  expCoef<>+64(SB), Y0, Y2
	VFMADD213PD  expCoef<>+64(SB), Y3, Y5
	VFMADD213PD  expCoef<>+96(SB), Y0, Y2
	VFMADD213PD  expCoef<>+96(SB), Y3, Y5
	VFMADD213PD  expCoef<>+128(SB), Y0, Y2
	VFMADD213PD  expCoef<>+128(SB), Y3, Y5
	VFMADD213PD  expCoef<>+160(SB), Y0, Y2
	VFMADD213PD  expCoef<>+160(SB), Y3, Y5
	VFMADD213PD  expCoef<>+192(SB), Y0, Y2
	VFMADD213PD  expCoef<>+192(SB), Y3, Y5
	VFMADD213PD  expCoef<>+224(SB), Y0, Y2
	VFMADD213PD  expCoef<>+224(SB), Y3, Y5
	VFMADD213PD  expCoef<>+256(SB), Y0, Y2
	VFMADD213PD  expCoef<>+256(SB), Y3, Y5
	VFMADD213PD  expCoef<>+288(SB), Y0, Y2
	VFMADD213PD  expCoef<>+288(SB), Y3, Y5
	VFMADD213PD  expCoef<>+320(SB), Y0, Y2
	VFMADD213PD  expCoef<>+320(SB), Y3, Y5
	VFMADD213PD  expCoef<>+352(SB), Y0, Y2
	VFMADD213PD  expCoef<>+352(SB), Y3, Y5
	VFMADD213PD  expCoef<>+384(SB), Y0, Y2
	VFMADD213PD  expCoef<>+384(SB), Y3, Y5
	VFMADD213PD  expCoef<>+416(SB), Y0, Y2
	VFMADD213PD  expCoef<>+416(SB), Y3, Y5
	VMULPD       Y9, Y1, Y0
	VMULPD       Y9, Y4, Y3
	VROUNDPD     $1, Y0, Y0
	VROUNDPD     $1, Y3, Y3
	VSUBPD       Y0, Y1, Y1
	VSUBPD       Y3, Y4, Y4
	VADDPD       Y8, Y0, Y0
	VADDPD       Y8, Y3, Y3
	VADDPD       Y8, Y1, Y1
	VADDPD       Y8, Y4, Y4
	VPSLLQ       $52, Y0, Y0
	VPSLLQ       $52, Y3, Y3
	VPSLLQ       $52, Y1, Y1
	VPSLLQ       $52, Y4, Y4
	VMULPD       Y0, Y2, Y2
	VMULPD       Y3, Y5, Y5
	VMULPD       Y1, Y2, Y2
	VMULPD       Y4, Y5, Y5
	VMOVUPD      Y2, 0(DI)
	VMOVUPD      Y5, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $8, CX
	JMP  loop8

tail4:
	CMPQ CX, $4
	JLT  done
	VMULPD       0(SI), Y15, Y0
	VMAXPD       Y0, Y14, Y0
	VMINPD       Y0, Y13, Y0
	VMULPD       Y0, Y12, Y1
	VROUNDPD     $0, Y1, Y1
	VFNMADD231PD Y11, Y1, Y0
	VFNMADD231PD Y10, Y1, Y0
	VMOVUPD      expCoef<>+0(SB), Y2
	VFMADD213PD  expCoef<>+32(SB), Y0, Y2
	VFMADD213PD  expCoef<>+64(SB), Y0, Y2
	VFMADD213PD  expCoef<>+96(SB), Y0, Y2
	VFMADD213PD  expCoef<>+128(SB), Y0, Y2
	VFMADD213PD  expCoef<>+160(SB), Y0, Y2
	VFMADD213PD  expCoef<>+192(SB), Y0, Y2
	VFMADD213PD  expCoef<>+224(SB), Y0, Y2
	VFMADD213PD  expCoef<>+256(SB), Y0, Y2
	VFMADD213PD  expCoef<>+288(SB), Y0, Y2
	VFMADD213PD  expCoef<>+320(SB), Y0, Y2
	VFMADD213PD  expCoef<>+352(SB), Y0, Y2
	VFMADD213PD  expCoef<>+384(SB), Y0, Y2
	VFMADD213PD  expCoef<>+416(SB), Y0, Y2
	VMULPD       Y9, Y1, Y0
	VROUNDPD     $1, Y0, Y0
	VSUBPD       Y0, Y1, Y1
	VADDPD       Y8, Y0, Y0
	VADDPD       Y8, Y1, Y1
	VPSLLQ       $52, Y0, Y0
	VPSLLQ       $52, Y1, Y1
	VMULPD       Y0, Y2, Y2
	VMULPD       Y1, Y2, Y2
	VMOVUPD      Y2, 0(DI)

done:
	VZEROUPPER
	RET
