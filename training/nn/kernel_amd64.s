//go:build !noasm && !gccgo && !safe

#include "textflag.h"

// func addMessage4y(o, c, y *float64, d int)
//
// For j = 0..d−1 in fours (the caller passes d a multiple of 4): o[j] =
// fma(c[k], y[k·d+j], o[j]) for k = 0, 1, 2, 3 in turn: addMessage's
// chain, four elements per instruction (AVX2 and FMA).
TEXT ·addMessage4y(SB), NOSPLIT, $0-32
	MOVQ o+0(FP), DI
	MOVQ c+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ d+24(FP), CX
	VBROADCASTSD 0(SI), Y8
	VBROADCASTSD 8(SI), Y9
	VBROADCASTSD 16(SI), Y10
	VBROADCASTSD 24(SI), Y11
	MOVQ CX, R8
	SHLQ $3, R8
	LEAQ (DX)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	SHRQ $2, CX
	JZ   adone

aloop:
	VMOVUPD     (DI), Y0
	VFMADD231PD (DX), Y8, Y0
	VFMADD231PD (R9), Y9, Y0
	VFMADD231PD (R10), Y10, Y0
	VFMADD231PD (R11), Y11, Y0
	VMOVUPD     Y0, (DI)
	ADDQ        $32, DI
	ADDQ        $32, DX
	ADDQ        $32, R9
	ADDQ        $32, R10
	ADDQ        $32, R11
	DECQ        CX
	JNZ         aloop

adone:
	VZEROUPPER
	RET

// func spreadMessage4y(dy, c, gr *float64, d int)
//
// For j = 0..d−1 in fours (d a multiple of 4) and k = 0..3: dy[k·d+j] =
// fma(c[k], gr[j], dy[k·d+j]): spreadMessage's terms, four elements per
// instruction (AVX2 and FMA).
TEXT ·spreadMessage4y(SB), NOSPLIT, $0-32
	MOVQ dy+0(FP), DI
	MOVQ c+8(FP), SI
	MOVQ gr+16(FP), DX
	MOVQ d+24(FP), CX
	VBROADCASTSD 0(SI), Y8
	VBROADCASTSD 8(SI), Y9
	VBROADCASTSD 16(SI), Y10
	VBROADCASTSD 24(SI), Y11
	MOVQ CX, R8
	SHLQ $3, R8
	LEAQ (DI)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	SHRQ $2, CX
	JZ   sdone

sloop:
	VMOVUPD     (DX), Y0
	VMOVUPD     (DI), Y1
	VFMADD231PD Y0, Y8, Y1
	VMOVUPD     Y1, (DI)
	VMOVUPD     (R9), Y2
	VFMADD231PD Y0, Y9, Y2
	VMOVUPD     Y2, (R9)
	VMOVUPD     (R10), Y3
	VFMADD231PD Y0, Y10, Y3
	VMOVUPD     Y3, (R10)
	VMOVUPD     (R11), Y4
	VFMADD231PD Y0, Y11, Y4
	VMOVUPD     Y4, (R11)
	ADDQ        $32, DX
	ADDQ        $32, DI
	ADDQ        $32, R9
	ADDQ        $32, R10
	ADDQ        $32, R11
	DECQ        CX
	JNZ         sloop

sdone:
	VZEROUPPER
	RET

// func fmaRows4(c *float64, ldc int, a *float64, inca, rowa int, b *float64, ldb, n8, k int, zero bool)
//
// Four rows of C, eight columns at a time for n8 columns (a multiple of
// 8): c[r·ldc + j] = fma(a[r·rowa + l·inca], b[l·ldb + j], c[r·ldc + j])
// for l = 0..k−1 in turn (k ≥ 1), each element one chain of fused
// multiply-adds (gemm's contract, which the pure Go path reproduces with
// math.FMA). With zero set the chains start at +0 instead of C's values.
// AVX2 and FMA: the caller checks haveFMA and the bounds.
TEXT ·fmaRows4(SB), NOSPLIT, $0-73
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R12
	SHLQ $3, R12
	MOVQ a+16(FP), SI
	MOVQ inca+24(FP), R8
	SHLQ $3, R8
	MOVQ rowa+32(FP), R10
	SHLQ $3, R10
	LEAQ (R10)(R10*2), R11
	MOVQ b+40(FP), DX
	MOVQ ldb+48(FP), R9
	SHLQ $3, R9
	MOVQ n8+56(FP), BX
	MOVQ k+64(FP), CX

block4:
	CMPB zero+72(FP), $0
	JNE  zero4
	LEAQ    (DI)(R12*2), R13
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD (DI)(R12*1), Y2
	VMOVUPD 32(DI)(R12*1), Y3
	VMOVUPD (R13), Y4
	VMOVUPD 32(R13), Y5
	VMOVUPD (R13)(R12*1), Y6
	VMOVUPD 32(R13)(R12*1), Y7
	JMP     start4

zero4:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

start4:
	MOVQ SI, R13
	MOVQ DX, R14
	MOVQ CX, AX

loop4:
	VMOVUPD      (R14), Y8
	VMOVUPD      32(R14), Y9
	VBROADCASTSD (R13), Y10
	VFMADD231PD  Y8, Y10, Y0
	VFMADD231PD  Y9, Y10, Y1
	VBROADCASTSD (R13)(R10*1), Y11
	VFMADD231PD  Y8, Y11, Y2
	VFMADD231PD  Y9, Y11, Y3
	VBROADCASTSD (R13)(R10*2), Y12
	VFMADD231PD  Y8, Y12, Y4
	VFMADD231PD  Y9, Y12, Y5
	VBROADCASTSD (R13)(R11*1), Y13
	VFMADD231PD  Y8, Y13, Y6
	VFMADD231PD  Y9, Y13, Y7
	ADDQ         R8, R13
	ADDQ         R9, R14
	DECQ         AX
	JNZ          loop4

	LEAQ    (DI)(R12*2), R13
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, (DI)(R12*1)
	VMOVUPD Y3, 32(DI)(R12*1)
	VMOVUPD Y4, (R13)
	VMOVUPD Y5, 32(R13)
	VMOVUPD Y6, (R13)(R12*1)
	VMOVUPD Y7, 32(R13)(R12*1)

	ADDQ $64, DI
	ADDQ $64, DX
	SUBQ $8, BX
	JG   block4
	VZEROUPPER
	RET

// func fmaRow16(c *float64, a *float64, inca int, b *float64, ldb, n16, k int, zero bool)
//
// fmaRows4 for one row of C, sixteen columns at a time for n16 columns
// (a multiple of 16): four chains in flight where eight columns would
// leave two, each element the same chain of fused multiply-adds.
TEXT ·fmaRow16(SB), NOSPLIT, $0-57
	MOVQ c+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ inca+16(FP), R8
	SHLQ $3, R8
	MOVQ b+24(FP), DX
	MOVQ ldb+32(FP), R9
	SHLQ $3, R9
	MOVQ n16+40(FP), BX
	MOVQ k+48(FP), CX

block1:
	CMPB zero+56(FP), $0
	JNE  zero1
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	JMP     start1

zero1:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

start1:
	MOVQ SI, R13
	MOVQ DX, R14
	MOVQ CX, AX

loop1:
	VBROADCASTSD (R13), Y10
	VFMADD231PD  (R14), Y10, Y0
	VFMADD231PD  32(R14), Y10, Y1
	VFMADD231PD  64(R14), Y10, Y2
	VFMADD231PD  96(R14), Y10, Y3
	ADDQ         R8, R13
	ADDQ         R9, R14
	DECQ         AX
	JNZ          loop1

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)

	ADDQ $128, DI
	ADDQ $128, DX
	SUBQ $16, BX
	JG   block1
	VZEROUPPER
	RET
