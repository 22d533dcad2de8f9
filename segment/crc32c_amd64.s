#include "textflag.h"

// func foldCastagnoli(reg uint32, p []byte) uint32
//
// Four 512-bit accumulators Z0..Z3 hold the first 256 bytes (the register
// XORed into the first four); each round moves them on by 2048 bits with
// two carry-less products per 128-bit lane and XORs in the next 256 bytes.
// Then Z0 is moved into Z1, Z1 into Z2, Z2 into Z3 (512 bits each), Z3's
// first three lanes into its last (384, 256, 128 bits), and the CRC32
// instruction reduces those 128 bits to the register. Multipliers: foldK.
TEXT ·foldCastagnoli(SB), NOSPLIT, $0-36
	MOVL reg+0(FP), AX
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX

	VMOVDQU64 (SI), Z0
	VMOVDQU64 64(SI), Z1
	VMOVDQU64 128(SI), Z2
	VMOVDQU64 192(SI), Z3
	VMOVD     AX, X8
	VPXORQ    Z8, Z0, Z0
	ADDQ      $256, SI
	SUBQ      $256, CX
	JZ        reduce

	VBROADCASTI32X4 ·foldK+0(SB), Z10

loop:
	VPCLMULQDQ $0x00, Z10, Z0, Z4
	VPCLMULQDQ $0x11, Z10, Z0, Z0
	VPTERNLOGD $0x96, (SI), Z4, Z0
	VPCLMULQDQ $0x00, Z10, Z1, Z5
	VPCLMULQDQ $0x11, Z10, Z1, Z1
	VPTERNLOGD $0x96, 64(SI), Z5, Z1
	VPCLMULQDQ $0x00, Z10, Z2, Z6
	VPCLMULQDQ $0x11, Z10, Z2, Z2
	VPTERNLOGD $0x96, 128(SI), Z6, Z2
	VPCLMULQDQ $0x00, Z10, Z3, Z7
	VPCLMULQDQ $0x11, Z10, Z3, Z3
	VPTERNLOGD $0x96, 192(SI), Z7, Z3
	ADDQ       $256, SI
	SUBQ       $256, CX
	JNZ        loop

reduce:
	VBROADCASTI32X4 ·foldK+16(SB), Z10
	VPCLMULQDQ      $0x00, Z10, Z0, Z4
	VPCLMULQDQ      $0x11, Z10, Z0, Z0
	VPTERNLOGD      $0x96, Z4, Z0, Z1
	VPCLMULQDQ      $0x00, Z10, Z1, Z4
	VPCLMULQDQ      $0x11, Z10, Z1, Z1
	VPTERNLOGD      $0x96, Z4, Z1, Z2
	VPCLMULQDQ      $0x00, Z10, Z2, Z4
	VPCLMULQDQ      $0x11, Z10, Z2, Z2
	VPTERNLOGD      $0x96, Z4, Z2, Z3

	// Lanes 0..2 of Z3 moved on to the end; lane 3's multipliers are zero.
	VMOVDQU64     ·foldK+32(SB), Z10
	VPCLMULQDQ    $0x00, Z10, Z3, Z4
	VPCLMULQDQ    $0x11, Z10, Z3, Z5
	VPXORQ        Z5, Z4, Z4
	VEXTRACTI32X4 $1, Z4, X5
	VEXTRACTI32X4 $2, Z4, X6
	VEXTRACTI32X4 $3, Z3, X7
	VPXOR         X5, X4, X4
	VPXOR         X7, X6, X6
	VPXOR         X6, X4, X4

	VMOVQ   X4, BX
	VPEXTRQ $1, X4, DX
	XORL    AX, AX
	CRC32Q  BX, AX
	CRC32Q  DX, AX
	VZEROUPPER
	MOVL    AX, ret+32(FP)
	RET
