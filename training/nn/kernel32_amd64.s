//go:build !noasm && !gccgo && !safe

#include "textflag.h"

// func fmaRows4f(c *float32, ldc int, a *float32, lda int, b *float32, ldb, n16, k int, zero bool)
//
// Four rows of C, sixteen columns at a time for n16 columns (a multiple
// of 16): c[r·ldc + j] = fma(a[r·lda + l], b[l·ldb + j], c[r·ldc + j])
// for l = 0..k−1 in turn (k ≥ 1), each element one chain of
// single-precision fused multiply-adds (Gemm32's contract, which the
// pure Go path reproduces with fma32). With zero set the chains start at
// +0 instead of C's values. fmaRows4's loop with eight floats a
// register. AVX2 and FMA: the caller checks haveFMA and the bounds.
TEXT ·fmaRows4f(SB), NOSPLIT, $0-65
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R12
	SHLQ $2, R12
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R10
	SHLQ $2, R10
	LEAQ (R10)(R10*2), R11
	MOVQ b+32(FP), DX
	MOVQ ldb+40(FP), R9
	SHLQ $2, R9
	MOVQ n16+48(FP), BX
	MOVQ k+56(FP), CX

fblock4:
	CMPB zero+64(FP), $0
	JNE  fzero4
	LEAQ    (DI)(R12*2), R13
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS (DI)(R12*1), Y2
	VMOVUPS 32(DI)(R12*1), Y3
	VMOVUPS (R13), Y4
	VMOVUPS 32(R13), Y5
	VMOVUPS (R13)(R12*1), Y6
	VMOVUPS 32(R13)(R12*1), Y7
	JMP     fstart4

fzero4:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

fstart4:
	MOVQ SI, R13
	MOVQ DX, R14
	MOVQ CX, AX

floop4:
	VMOVUPS      (R14), Y8
	VMOVUPS      32(R14), Y9
	VBROADCASTSS (R13), Y10
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VBROADCASTSS (R13)(R10*1), Y11
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VBROADCASTSS (R13)(R10*2), Y12
	VFMADD231PS  Y8, Y12, Y4
	VFMADD231PS  Y9, Y12, Y5
	VBROADCASTSS (R13)(R11*1), Y13
	VFMADD231PS  Y8, Y13, Y6
	VFMADD231PS  Y9, Y13, Y7
	ADDQ         $4, R13
	ADDQ         R9, R14
	DECQ         AX
	JNZ          floop4

	LEAQ    (DI)(R12*2), R13
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, (DI)(R12*1)
	VMOVUPS Y3, 32(DI)(R12*1)
	VMOVUPS Y4, (R13)
	VMOVUPS Y5, 32(R13)
	VMOVUPS Y6, (R13)(R12*1)
	VMOVUPS Y7, 32(R13)(R12*1)

	ADDQ $64, DI
	ADDQ $64, DX
	SUBQ $16, BX
	JG   fblock4
	VZEROUPPER
	RET

// func fmaRowf(c *float32, a *float32, b *float32, ldb, n, k int, zero bool)
//
// fmaRows4f for one row of C and any n ≥ 0 columns: thirty-two at a
// time, then eight, then one (VFMADD231SS), each element the same chain
// of single-precision fused multiply-adds.
TEXT ·fmaRowf(SB), NOSPLIT, $0-49
	MOVQ c+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ ldb+24(FP), R9
	SHLQ $2, R9
	MOVQ n+32(FP), BX
	MOVQ k+40(FP), CX

rblock32:
	CMPQ BX, $32
	JLT  rblock8
	CMPB zero+48(FP), $0
	JNE  rzero32
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	JMP     rstart32

rzero32:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

rstart32:
	MOVQ SI, R13
	MOVQ DX, R14
	MOVQ CX, AX

rloop32:
	VBROADCASTSS (R13), Y10
	VFMADD231PS  (R14), Y10, Y0
	VFMADD231PS  32(R14), Y10, Y1
	VFMADD231PS  64(R14), Y10, Y2
	VFMADD231PS  96(R14), Y10, Y3
	ADDQ         $4, R13
	ADDQ         R9, R14
	DECQ         AX
	JNZ          rloop32

	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)

	ADDQ $128, DI
	ADDQ $128, DX
	SUBQ $32, BX
	JMP  rblock32

rblock8:
	CMPQ BX, $8
	JLT  rblock1
	CMPB zero+48(FP), $0
	JNE  rzero8
	VMOVUPS (DI), Y0
	JMP     rstart8

rzero8:
	VXORPS Y0, Y0, Y0

rstart8:
	MOVQ SI, R13
	MOVQ DX, R14
	MOVQ CX, AX

rloop8:
	VBROADCASTSS (R13), Y10
	VFMADD231PS  (R14), Y10, Y0
	ADDQ         $4, R13
	ADDQ         R9, R14
	DECQ         AX
	JNZ          rloop8

	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, DX
	SUBQ    $8, BX
	JMP     rblock8

rblock1:
	CMPQ BX, $1
	JLT  rdone
	CMPB zero+48(FP), $0
	JNE  rzero1
	VMOVSS (DI), X0
	JMP    rstart1

rzero1:
	VXORPS X0, X0, X0

rstart1:
	MOVQ SI, R13
	MOVQ DX, R14
	MOVQ CX, AX

rloop1:
	VMOVSS      (R13), X10
	VFMADD231SS (R14), X10, X0
	ADDQ        $4, R13
	ADDQ        R9, R14
	DECQ        AX
	JNZ         rloop1

	VMOVSS X0, (DI)
	ADDQ   $4, DI
	ADDQ   $4, DX
	DECQ   BX
	JMP    rblock1

rdone:
	VZEROUPPER
	RET

// func fmaRows4x32f(c *float32, ldc int, a *float32, lda int, b *float32, ldb, n32, k int, zero bool)
//
// fmaRows4f for n32 (a multiple of 32) columns, thirty-two at a time in
// AVX-512 registers: each element the same chain (the caller checks
// haveAVX512 and the bounds).
TEXT ·fmaRows4x32f(SB), NOSPLIT, $0-65
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R12
	SHLQ $2, R12
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R10
	SHLQ $2, R10
	LEAQ (R10)(R10*2), R11
	MOVQ b+32(FP), DX
	MOVQ ldb+40(FP), R9
	SHLQ $2, R9
	MOVQ n32+48(FP), BX
	MOVQ k+56(FP), CX

zfblock4:
	CMPB zero+64(FP), $0
	JNE  zfzero4
	LEAQ    (DI)(R12*2), R13
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS (DI)(R12*1), Z2
	VMOVUPS 64(DI)(R12*1), Z3
	VMOVUPS (R13), Z4
	VMOVUPS 64(R13), Z5
	VMOVUPS (R13)(R12*1), Z6
	VMOVUPS 64(R13)(R12*1), Z7
	JMP     zfstart4

zfzero4:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7

zfstart4:
	MOVQ SI, R13
	MOVQ DX, R14
	MOVQ CX, AX

zfloop4:
	VMOVUPS      (R14), Z8
	VMOVUPS      64(R14), Z9
	VBROADCASTSS (R13), Z10
	VFMADD231PS  Z8, Z10, Z0
	VFMADD231PS  Z9, Z10, Z1
	VBROADCASTSS (R13)(R10*1), Z11
	VFMADD231PS  Z8, Z11, Z2
	VFMADD231PS  Z9, Z11, Z3
	VBROADCASTSS (R13)(R10*2), Z12
	VFMADD231PS  Z8, Z12, Z4
	VFMADD231PS  Z9, Z12, Z5
	VBROADCASTSS (R13)(R11*1), Z13
	VFMADD231PS  Z8, Z13, Z6
	VFMADD231PS  Z9, Z13, Z7
	ADDQ         $4, R13
	ADDQ         R9, R14
	DECQ         AX
	JNZ          zfloop4

	LEAQ    (DI)(R12*2), R13
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, (DI)(R12*1)
	VMOVUPS Z3, 64(DI)(R12*1)
	VMOVUPS Z4, (R13)
	VMOVUPS Z5, 64(R13)
	VMOVUPS Z6, (R13)(R12*1)
	VMOVUPS Z7, 64(R13)(R12*1)

	ADDQ $128, DI
	ADDQ $128, DX
	SUBQ $32, BX
	JG   zfblock4
	VZEROUPPER
	RET

// func aggregate4f(o *float32, d int, coef, y *float32, yw int, edges, src *int, n int)
//
// aggregate4y in single precision: for i = 0..n−1, e = edges[i], s =
// src[e]: o[j] = fma(coef[4e+k], y[s·yw + k·d + j], o[j]) for k = 0..3
// in turn and j < d, o held in registers across the edges (d = 16 or
// 32; the caller checks). Every element's chain is aggregate32's.
TEXT ·aggregate4f(SB), NOSPLIT, $0-64
	MOVQ o+0(FP), DI
	MOVQ d+8(FP), R12
	MOVQ coef+16(FP), SI
	MOVQ y+24(FP), DX
	MOVQ yw+32(FP), R8
	SHLQ $2, R8
	MOVQ edges+40(FP), R9
	MOVQ src+48(FP), R10
	MOVQ n+56(FP), CX
	TESTQ CX, CX
	JZ    fgdone
	CMPQ  R12, $32
	JEQ   fg32

	VMOVUPS 0(DI), Y0
	VMOVUPS 32(DI), Y1

fg16loop:
	MOVQ         (R9), AX
	MOVQ         (R10)(AX*8), BX
	SHLQ         $4, AX
	VBROADCASTSS 0(SI)(AX*1), Y8
	VBROADCASTSS 4(SI)(AX*1), Y9
	VBROADCASTSS 8(SI)(AX*1), Y10
	VBROADCASTSS 12(SI)(AX*1), Y11
	IMULQ        R8, BX
	LEAQ         (DX)(BX*1), R11
	VFMADD231PS  0(R11), Y8, Y0
	VFMADD231PS  32(R11), Y8, Y1
	VFMADD231PS  64(R11), Y9, Y0
	VFMADD231PS  96(R11), Y9, Y1
	VFMADD231PS  128(R11), Y10, Y0
	VFMADD231PS  160(R11), Y10, Y1
	VFMADD231PS  192(R11), Y11, Y0
	VFMADD231PS  224(R11), Y11, Y1
	ADDQ         $8, R9
	DECQ         CX
	JNZ          fg16loop

	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	JMP     fgdone

fg32:
	VMOVUPS 0(DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3

fg32loop:
	MOVQ         (R9), AX
	MOVQ         (R10)(AX*8), BX
	SHLQ         $4, AX
	VBROADCASTSS 0(SI)(AX*1), Y8
	VBROADCASTSS 4(SI)(AX*1), Y9
	VBROADCASTSS 8(SI)(AX*1), Y10
	VBROADCASTSS 12(SI)(AX*1), Y11
	IMULQ        R8, BX
	LEAQ         (DX)(BX*1), R11
	VFMADD231PS  0(R11), Y8, Y0
	VFMADD231PS  32(R11), Y8, Y1
	VFMADD231PS  64(R11), Y8, Y2
	VFMADD231PS  96(R11), Y8, Y3
	VFMADD231PS  128(R11), Y9, Y0
	VFMADD231PS  160(R11), Y9, Y1
	VFMADD231PS  192(R11), Y9, Y2
	VFMADD231PS  224(R11), Y9, Y3
	VFMADD231PS  256(R11), Y10, Y0
	VFMADD231PS  288(R11), Y10, Y1
	VFMADD231PS  320(R11), Y10, Y2
	VFMADD231PS  352(R11), Y10, Y3
	VFMADD231PS  384(R11), Y11, Y0
	VFMADD231PS  416(R11), Y11, Y1
	VFMADD231PS  448(R11), Y11, Y2
	VFMADD231PS  480(R11), Y11, Y3
	ADDQ         $8, R9
	DECQ         CX
	JNZ          fg32loop

	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)

fgdone:
	VZEROUPPER
	RET

// func addMessage4f(o, c, y *float32, d int)
//
// For j = 0..d−1 (any d ≥ 0): o[j] = fma(c[k], y[k·d+j], o[j]) for k =
// 0, 1, 2, 3 in turn, eight elements per instruction, then one
// (VFMADD231SS): aggregate32's chain for one message (AVX2 and FMA).
TEXT ·addMessage4f(SB), NOSPLIT, $0-32
	MOVQ o+0(FP), DI
	MOVQ c+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ d+24(FP), CX
	VBROADCASTSS 0(SI), Y8
	VBROADCASTSS 4(SI), Y9
	VBROADCASTSS 8(SI), Y10
	VBROADCASTSS 12(SI), Y11
	MOVQ CX, R8
	SHLQ $2, R8
	LEAQ (DX)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11

mloop8:
	CMPQ        CX, $8
	JLT         mloop1
	VMOVUPS     (DI), Y0
	VFMADD231PS (DX), Y8, Y0
	VFMADD231PS (R9), Y9, Y0
	VFMADD231PS (R10), Y10, Y0
	VFMADD231PS (R11), Y11, Y0
	VMOVUPS     Y0, (DI)
	ADDQ        $32, DI
	ADDQ        $32, DX
	ADDQ        $32, R9
	ADDQ        $32, R10
	ADDQ        $32, R11
	SUBQ        $8, CX
	JMP         mloop8

mloop1:
	TESTQ       CX, CX
	JZ          mdone
	VMOVSS      (DI), X0
	VFMADD231SS (DX), X8, X0
	VFMADD231SS (R9), X9, X0
	VFMADD231SS (R10), X10, X0
	VFMADD231SS (R11), X11, X0
	VMOVSS      X0, (DI)
	ADDQ        $4, DI
	ADDQ        $4, DX
	ADDQ        $4, R9
	ADDQ        $4, R10
	ADDQ        $4, R11
	DECQ        CX
	JMP         mloop1

mdone:
	VZEROUPPER
	RET

// func spread4f(dy *float32, d int, coef, gr *float32, edges, dst *int, n int)
//
// spread4y in single precision: for each quarter k = 0..3 of dy (one
// source's row of 4·d values, d = 16 or 32; the caller checks), held in
// registers across the edges, and for i = 0..n−1, e = edges[i], u =
// dst[e]: dy[k·d + j] = fma(coef[4e+k], gr[u·d + j], dy[k·d + j]) for
// j < d. Every element's chain runs over the edges in order, as
// spread32's.
TEXT ·spread4f(SB), NOSPLIT, $0-56
	MOVQ  dy+0(FP), DI
	MOVQ  d+8(FP), R12
	MOVQ  coef+16(FP), SI
	MOVQ  gr+24(FP), DX
	MOVQ  edges+32(FP), R9
	MOVQ  dst+40(FP), R10
	MOVQ  n+48(FP), CX
	TESTQ CX, CX
	JZ    sfdone
	MOVQ  R12, R8
	SHLQ  $2, R8
	XORQ  R11, R11
	CMPQ  R12, $32
	JEQ   sf32q

sf16q:
	VMOVUPS 0(DI), Y0
	VMOVUPS 32(DI), Y1
	MOVQ    R9, R13
	MOVQ    CX, R14

sf16e:
	MOVQ         (R13), AX
	MOVQ         (R10)(AX*8), BX
	SHLQ         $4, AX
	ADDQ         R11, AX
	VBROADCASTSS (SI)(AX*1), Y8
	IMULQ        R8, BX
	VFMADD231PS  (DX)(BX*1), Y8, Y0
	VFMADD231PS  32(DX)(BX*1), Y8, Y1
	ADDQ         $8, R13
	DECQ         R14
	JNZ          sf16e

	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	ADDQ    R8, DI
	ADDQ    $4, R11
	CMPQ    R11, $16
	JLT     sf16q
	JMP     sfdone

sf32q:
	VMOVUPS 0(DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	MOVQ    R9, R13
	MOVQ    CX, R14

sf32e:
	MOVQ         (R13), AX
	MOVQ         (R10)(AX*8), BX
	SHLQ         $4, AX
	ADDQ         R11, AX
	VBROADCASTSS (SI)(AX*1), Y8
	IMULQ        R8, BX
	VFMADD231PS  (DX)(BX*1), Y8, Y0
	VFMADD231PS  32(DX)(BX*1), Y8, Y1
	VFMADD231PS  64(DX)(BX*1), Y8, Y2
	VFMADD231PS  96(DX)(BX*1), Y8, Y3
	ADDQ         $8, R13
	DECQ         R14
	JNZ          sf32e

	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    R8, DI
	ADDQ    $4, R11
	CMPQ    R11, $16
	JLT     sf32q

sfdone:
	VZEROUPPER
	RET
