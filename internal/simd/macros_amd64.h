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
