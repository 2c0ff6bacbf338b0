#include "textflag.h"

// The pair kernels look for the first i < len(b)-d with
// (b[i]|m1) == c1 and (b[i+d]|m2) == c2, 16 or 32 positions at a time:
// c1, c2 are two bytes of a literal d apart (its rarest), and m1, m2 are
// 0x20 to fold ASCII case (c is then a lower-case letter) or 0.
// The caller guarantees len(b)-d >= 16 (SSE2) or >= 32 (AVX2).

// func indexPairSSE2(b []byte, c1, m1, c2, m2 byte, d int) int
TEXT ·indexPairSSE2(SB), NOSPLIT, $0-48
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	MOVQ d+32(FP), R9
	MOVBLZX c1+24(FP), AX
	MOVQ AX, X1
	PUNPCKLBW X1, X1
	PUNPCKLBW X1, X1
	PSHUFL $0, X1, X1
	MOVBLZX m1+25(FP), AX
	MOVQ AX, X2
	PUNPCKLBW X2, X2
	PUNPCKLBW X2, X2
	PSHUFL $0, X2, X2
	MOVBLZX c2+26(FP), AX
	MOVQ AX, X3
	PUNPCKLBW X3, X3
	PUNPCKLBW X3, X3
	PSHUFL $0, X3, X3
	MOVBLZX m2+27(FP), AX
	MOVQ AX, X6
	PUNPCKLBW X6, X6
	PUNPCKLBW X6, X6
	PSHUFL $0, X6, X6

	LEAQ (SI)(R9*1), R12   // &b[d]
	MOVQ BX, R10
	SUBQ R9, R10           // R10: positions to look at
	MOVQ R10, R11
	SUBQ $16, R11          // R11: start of the last block
	XORQ DI, DI

	PCALIGN $16
sseloop:
	MOVOU (SI)(DI*1), X4
	MOVOU (R12)(DI*1), X5
	POR X2, X4
	PCMPEQB X1, X4
	POR X6, X5
	PCMPEQB X3, X5
	PAND X5, X4
	PMOVMSKB X4, AX
	TESTL AX, AX
	JNZ ssefound
	ADDQ $16, DI
	CMPQ DI, R11
	JLE sseloop
	// The last positions: one more block, overlapping those already
	// seen (which did not match, so their bits are clear).
	CMPQ DI, R10
	JGE notfound
	MOVQ R11, DI
	MOVOU (SI)(DI*1), X4
	MOVOU (R12)(DI*1), X5
	POR X2, X4
	PCMPEQB X1, X4
	POR X6, X5
	PCMPEQB X3, X5
	PAND X5, X4
	PMOVMSKB X4, AX
	TESTL AX, AX
	JNZ ssefound
notfound:
	MOVQ $-1, ret+40(FP)
	RET
ssefound:
	BSFL AX, AX
	ADDQ DI, AX
	MOVQ AX, ret+40(FP)
	RET

// func indexPairAVX2(b []byte, c1, m1, c2, m2 byte, d int) int
TEXT ·indexPairAVX2(SB), NOSPLIT, $0-48
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	MOVQ d+32(FP), R9
	// The bytes are broadcast straight from memory: no SSE instruction
	// (MOVQ to an X register) after the first VEX one, which on this
	// kind of processor costs a state transition of ~100 ns each
	// while the upper halves are dirty (a call paid ~450 ns before its
	// first block; bench/README.md, round 5 (repl5)).
	VPBROADCASTB c1+24(FP), Y1
	VPBROADCASTB m1+25(FP), Y2
	VPBROADCASTB c2+26(FP), Y3
	VPBROADCASTB m2+27(FP), Y6

	LEAQ (SI)(R9*1), R12
	MOVQ BX, R10
	SUBQ R9, R10
	MOVQ R10, R11
	SUBQ $32, R11
	XORQ DI, DI

	PCALIGN $32
avxloop:
	VMOVDQU (SI)(DI*1), Y4
	VMOVDQU (R12)(DI*1), Y5
	VPOR Y2, Y4, Y4
	VPCMPEQB Y1, Y4, Y4
	VPOR Y6, Y5, Y5
	VPCMPEQB Y3, Y5, Y5
	VPAND Y5, Y4, Y4
	VPMOVMSKB Y4, AX
	TESTL AX, AX
	JNZ avxfound
	ADDQ $32, DI
	CMPQ DI, R11
	JLE avxloop
	CMPQ DI, R10
	JGE avxnotfound
	MOVQ R11, DI
	VMOVDQU (SI)(DI*1), Y4
	VMOVDQU (R12)(DI*1), Y5
	VPOR Y2, Y4, Y4
	VPCMPEQB Y1, Y4, Y4
	VPOR Y6, Y5, Y5
	VPCMPEQB Y3, Y5, Y5
	VPAND Y5, Y4, Y4
	VPMOVMSKB Y4, AX
	TESTL AX, AX
	JNZ avxfound
avxnotfound:
	VZEROUPPER
	MOVQ $-1, ret+40(FP)
	RET
avxfound:
	VZEROUPPER
	BSFL AX, AX
	ADDQ DI, AX
	MOVQ AX, ret+40(FP)
	RET

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv0() (eax uint32)
TEXT ·xgetbv0(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	RET
