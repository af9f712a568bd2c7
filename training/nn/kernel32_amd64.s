//go:build !noasm && !gccgo && !safe

#include "textflag.h"
#include "kernel_amd64.h"

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

	FMA_ROWS4(VMOVUPS, VXORPS, VBROADCASTSS, VFMADD231PS, 32, 16, $4, zero+64(FP), Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13)

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
	FMA_ROW4(VMOVUPS, VXORPS, VBROADCASTSS, VFMADD231PS, 32, $4, zero+48(FP), Y0, Y1, Y2, Y3, Y10)

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

	FMA_ROWS4(VMOVUPS, VPXORD, VBROADCASTSS, VFMADD231PS, 64, 32, $4, zero+64(FP), Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13)

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

	AGGREGATE2(VMOVUPS, VBROADCASTSS, VFMADD231PS, 4, 4, 32, Y0, Y1)
	JMP     fgdone

fg32:
	AGGREGATE4(VMOVUPS, VBROADCASTSS, VFMADD231PS, 4, 4, 32, Y0, Y1, Y2, Y3)

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
	LOADS4(VBROADCASTSS, 4, 0, SI, Y8, Y9, Y10, Y11)
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
	LOADS4(VMOVUPS, 32, 0, DI, Y0, Y1, Y2, Y3)
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

	STORES4(VMOVUPS, 32, 0, DI, Y0, Y1, Y2, Y3)
	ADDQ    R8, DI
	ADDQ    $4, R11
	CMPQ    R11, $16
	JLT     sf32q

sfdone:
	VZEROUPPER
	RET
