// Macros shared by the AVX2 and AVX-512 kernels.

// HSUMTO leaves [ΣA, ΣB, ΣC, ΣD] (the horizontal sums of four 4-lane
// registers) in A; B and D are overwritten.
#define HSUMTO(A, B, C, D) \
	VHADDPD    B, A, A \
	VHADDPD    D, C, C \
	VPERM2F128 $0x20, C, A, B \
	VPERM2F128 $0x31, C, A, D \
	VADDPD     D, B, A

// FOLDZ adds the upper half of the 8-lane Z into its lower half Y, using
// Y16 as scratch.
#define FOLDZ(Z, Y) \
	VEXTRACTF64X4 $1, Z, Y16 \
	VADDPD        Y16, Y, Y

// PREFETCHROWS2, 4 and 8 prefetch into L2 the line at R12 of 2, 4 or 8
// rows DX bytes apart (R11 = 3·DX; PREFETCHROWS8 overwrites R13), then
// step R12 to the next line: the share of the next block that a pass of
// the one-read symmetric kernels fetches per step.
#define PREFETCHROWS2 \
	PREFETCHT1 (R12) \
	PREFETCHT1 (R12)(DX*1) \
	ADDQ       $64, R12

#define PREFETCHROWS4 \
	PREFETCHT1 (R12) \
	PREFETCHT1 (R12)(DX*1) \
	PREFETCHT1 (R12)(DX*2) \
	PREFETCHT1 (R12)(R11*1) \
	ADDQ       $64, R12

#define PREFETCHROWS8 \
	LEAQ       (R12)(DX*4), R13 \
	PREFETCHT1 (R13) \
	PREFETCHT1 (R13)(DX*1) \
	PREFETCHT1 (R13)(DX*2) \
	PREFETCHT1 (R13)(R11*1) \
	PREFETCHROWS4
