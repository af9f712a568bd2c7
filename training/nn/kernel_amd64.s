//go:build !noasm && !gccgo && !safe

#include "textflag.h"
#include "kernel_amd64.h"

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
	LOADS4(VBROADCASTSD, 8, 0, SI, Y8, Y9, Y10, Y11)
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
	LOADS4(VBROADCASTSD, 8, 0, SI, Y8, Y9, Y10, Y11)
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

	FMA_ROWS4(VMOVUPD, VXORPD, VBROADCASTSD, VFMADD231PD, 32, 8, R8, zero+72(FP), Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13)

// func fmaRow16(c *float64, a *float64, inca int, b *float64, ldb, n, k int, zero bool)
//
// fmaRows4 for one row of C, sixteen columns at a time for n columns
// (a multiple of 16): four chains in flight where eight columns would
// leave two, each element the same chain of fused multiply-adds.
TEXT ·fmaRow16(SB), NOSPLIT, $0-57
	ROW_ARGS

block1:
	FMA_ROW4(VMOVUPD, VXORPD, VBROADCASTSD, VFMADD231PD, 32, R8, zero+56(FP), Y0, Y1, Y2, Y3, Y10)

	ADDQ $128, DI
	ADDQ $128, DX
	SUBQ $16, BX
	JG   block1
	VZEROUPPER
	RET

// func aggregate4y(o *float64, d int, coef, y *float64, yw int, edges, src *int, n int)
//
// For i = 0..n−1, e = edges[i], s = src[e]: o[j] = fma(coef[4e+k],
// y[s·yw + k·d + j], o[j]) for k = 0..3 in turn and j < d: addMessage of
// each edge in order, o held in registers across the edges (d = 16 or
// 32; the caller checks). Every element's chain is addMessage's.
TEXT ·aggregate4y(SB), NOSPLIT, $0-64
	MOVQ o+0(FP), DI
	MOVQ d+8(FP), R12
	MOVQ coef+16(FP), SI
	MOVQ y+24(FP), DX
	MOVQ yw+32(FP), R8
	SHLQ $3, R8
	MOVQ edges+40(FP), R9
	MOVQ src+48(FP), R10
	MOVQ n+56(FP), CX
	TESTQ CX, CX
	JZ    gdone
	CMPQ  R12, $32
	JEQ   g32

	AGGREGATE4(VMOVUPD, VBROADCASTSD, VFMADD231PD, 5, 8, 32, Y0, Y1, Y2, Y3)
	JMP     gdone

g32:
	AGGREGATE8(VMOVUPD, VBROADCASTSD, VFMADD231PD, 5, 8, 32, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)

gdone:
	VZEROUPPER
	RET

// func spread4y(dy *float64, d int, coef, gr *float64, edges, dst *int, n int)
//
// For k = 0..3 and j < d: dy[k·d + j] = fma(coef[4e+k], gr[dst[e]·d + j],
// dy[k·d + j]) for e = edges[0], …, edges[n−1] in turn: spreadMessage of
// each edge in order into one source's row of dY, held in registers a
// quarter at a time (d = 16 or 32; the caller checks). Every element's
// chain is spreadMessage's.
TEXT ·spread4y(SB), NOSPLIT, $0-56
	MOVQ dy+0(FP), DI
	MOVQ d+8(FP), R12
	MOVQ coef+16(FP), SI
	MOVQ gr+24(FP), DX
	MOVQ edges+32(FP), R9
	MOVQ dst+40(FP), R10
	MOVQ n+48(FP), R14
	TESTQ R14, R14
	JZ    pdone
	MOVQ  R12, R8
	SHLQ  $3, R8      // a row of g (and a quarter of dy's row) in bytes
	MOVQ  $4, R13     // quarters left
	CMPQ  R12, $32
	JEQ   p32

p16k:
	LOADS4(VMOVUPD, 32, 0, DI, Y0, Y1, Y2, Y3)
	MOVQ    R9, R15
	MOVQ    R14, CX

p16loop:
	MOVQ         (R15), AX
	MOVQ         (R10)(AX*8), BX
	SHLQ         $5, AX
	VBROADCASTSD 0(SI)(AX*1), Y8
	IMULQ        R8, BX
	LEAQ         (DX)(BX*1), R11
	FMAS4(VFMADD231PD, 32, 0, R11, Y8, Y0, Y1, Y2, Y3)
	ADDQ         $8, R15
	DECQ         CX
	JNZ          p16loop

	STORES4(VMOVUPD, 32, 0, DI, Y0, Y1, Y2, Y3)
	ADDQ    R8, DI
	ADDQ    $8, SI
	DECQ    R13
	JNZ     p16k
	JMP     pdone

p32:
	LOADS8(VMOVUPD, 32, 0, DI, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	MOVQ    R9, R15
	MOVQ    R14, CX

p32loop:
	MOVQ         (R15), AX
	MOVQ         (R10)(AX*8), BX
	SHLQ         $5, AX
	VBROADCASTSD 0(SI)(AX*1), Y8
	IMULQ        R8, BX
	LEAQ         (DX)(BX*1), R11
	FMAS8(VFMADD231PD, 32, 0, R11, Y8, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	ADDQ         $8, R15
	DECQ         CX
	JNZ          p32loop

	STORES8(VMOVUPD, 32, 0, DI, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	ADDQ    R8, DI
	ADDQ    $8, SI
	DECQ    R13
	JNZ     p32

pdone:
	VZEROUPPER
	RET

// func fmaRows4x16(c *float64, ldc int, a *float64, inca, rowa int, b *float64, ldb, n16, k int, zero bool)
//
// fmaRows4 with AVX-512F registers: four rows of C, sixteen columns at a
// time for n16 columns (a multiple of 16), each element the same chain
// of fused multiply-adds over l in order. The caller checks haveAVX512
// and the bounds.
TEXT ·fmaRows4x16(SB), NOSPLIT, $0-73
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
	MOVQ n16+56(FP), BX
	MOVQ k+64(FP), CX

	FMA_ROWS4(VMOVUPD, VPXORQ, VBROADCASTSD, VFMADD231PD, 64, 16, R8, zero+72(FP), Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13)

// func reluSum4y(a, s, c, cb *float64, n int)
//
// For j = 0..n−1 in fours (n a multiple of 4): a[j] = max(s[j] + (c[j] +
// cb[j]), 0) as Go's max computes it (NaN stays NaN, though not always
// with its sign and payload; −0 becomes +0), or
// max(s[j] + c[j], 0) with cb nil: ReLUScore's rows of A, four elements
// per instruction (AVX2).
TEXT ·reluSum4y(SB), NOSPLIT, $0-40
	MOVQ a+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ c+16(FP), DX
	MOVQ cb+24(FP), R8
	MOVQ n+32(FP), CX
	VXORPD Y15, Y15, Y15
	SHRQ $2, CX
	JZ   rdone
	TESTQ R8, R8
	JZ    rloop2

rloop3:
	VMOVUPD   (DX), Y0
	VADDPD    (R8), Y0, Y0
	VADDPD    (SI), Y0, Y0
	VMAXPD    Y15, Y0, Y1       // x > 0 ? x : +0 (NaN: +0)
	VCMPPD    $3, Y0, Y0, Y2    // x unordered: NaN
	VBLENDVPD Y2, Y0, Y1, Y1    // NaN: x
	VMOVUPD   Y1, (DI)
	ADDQ      $32, DI
	ADDQ      $32, SI
	ADDQ      $32, DX
	ADDQ      $32, R8
	DECQ      CX
	JNZ       rloop3
	JMP       rdone

rloop2:
	VMOVUPD   (SI), Y0
	VADDPD    (DX), Y0, Y0
	VMAXPD    Y15, Y0, Y1
	VCMPPD    $3, Y0, Y0, Y2
	VBLENDVPD Y2, Y0, Y1, Y1
	VMOVUPD   Y1, (DI)
	ADDQ      $32, DI
	ADDQ      $32, SI
	ADDQ      $32, DX
	DECQ      CX
	JNZ       rloop2

rdone:
	VZEROUPPER
	RET

// func reluGrad4y(dst, a, w *float64, gi float64, n int)
//
// For j = 0..n−1 in fours (n a multiple of 4): dst[j] += gi·w[j] where
// a[j] > 0, dst[j] unchanged elsewhere (a product, then a sum: no fused
// multiply-add): ReLUScore's backward pass into one gradient row, four
// elements per instruction (AVX2).
TEXT ·reluGrad4y(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ w+16(FP), DX
	MOVSD        gi+24(FP), X14
	VBROADCASTSD X14, Y14
	MOVQ n+32(FP), CX
	VXORPD Y15, Y15, Y15
	SHRQ $2, CX
	JZ   gdone

gloop:
	VMOVUPD   (SI), Y0
	VCMPPD    $0x1e, Y15, Y0, Y1 // a > 0 (ordered: NaN false)
	VMULPD    (DX), Y14, Y2
	VMOVUPD   (DI), Y3
	VADDPD    Y2, Y3, Y4
	VBLENDVPD Y1, Y4, Y3, Y3    // a > 0: the sum
	VMOVUPD   Y3, (DI)
	ADDQ      $32, DI
	ADDQ      $32, SI
	ADDQ      $32, DX
	DECQ      CX
	JNZ       gloop

gdone:
	VZEROUPPER
	RET

// func transpose4y(at *float64, ldt int, a *float64, h int)
//
// at[j·ldt + r] = a[r·h + j] for rows r = 0..3 of a and j = 0..h−1 in
// fours (h a multiple of 4): four rows of ReLUScore's A into four columns
// of Aᵀ, a 4×4 tile at a time through registers (AVX2).
TEXT ·transpose4y(SB), NOSPLIT, $0-32
	MOVQ at+0(FP), DI
	MOVQ ldt+8(FP), R8
	SHLQ $3, R8
	MOVQ a+16(FP), SI
	MOVQ h+24(FP), CX
	MOVQ CX, R9
	SHLQ $3, R9
	LEAQ (SI)(R9*1), R10
	LEAQ (R10)(R9*1), R11
	LEAQ (R11)(R9*1), R12
	LEAQ (R8)(R8*2), R13
	SHRQ $2, CX
	JZ   tdone

tloop:
	VMOVUPD    (SI), Y0
	VMOVUPD    (R10), Y1
	VMOVUPD    (R11), Y2
	VMOVUPD    (R12), Y3
	VUNPCKLPD  Y1, Y0, Y4       // a0 b0 a2 b2
	VUNPCKHPD  Y1, Y0, Y5       // a1 b1 a3 b3
	VUNPCKLPD  Y3, Y2, Y6       // c0 d0 c2 d2
	VUNPCKHPD  Y3, Y2, Y7       // c1 d1 c3 d3
	VPERM2F128 $0x20, Y6, Y4, Y0 // a0 b0 c0 d0
	VPERM2F128 $0x20, Y7, Y5, Y1 // a1 b1 c1 d1
	VPERM2F128 $0x31, Y6, Y4, Y2 // a2 b2 c2 d2
	VPERM2F128 $0x31, Y7, Y5, Y3 // a3 b3 c3 d3
	VMOVUPD    Y0, (DI)
	VMOVUPD    Y1, (DI)(R8*1)
	VMOVUPD    Y2, (DI)(R8*2)
	VMOVUPD    Y3, (DI)(R13*1)
	ADDQ       $32, SI
	ADDQ       $32, R10
	ADDQ       $32, R11
	ADDQ       $32, R12
	LEAQ       (DI)(R8*4), DI
	DECQ       CX
	JNZ        tloop

tdone:
	VZEROUPPER
	RET

// func spread4z(dy *float64, d int, coef, gr *float64, edges, dst *int, n int)
//
// spread4y with AVX-512F registers: the whole of dy's row (4·d values,
// d = 16 or 32) held in registers across the edges, one pass over them
// where spread4y makes four, so each edge's four updates of an element
// group no longer wait on one chain at a time. Each element is the same
// chain of fused multiply-adds over the edges in order. The caller checks
// haveAVX512, d and the bounds.
TEXT ·spread4z(SB), NOSPLIT, $0-56
	MOVQ dy+0(FP), DI
	MOVQ d+8(FP), R12
	MOVQ coef+16(FP), SI
	MOVQ gr+24(FP), DX
	MOVQ edges+32(FP), R9
	MOVQ dst+40(FP), R10
	MOVQ n+48(FP), CX
	TESTQ CX, CX
	JZ    qdone
	CMPQ  R12, $32
	JEQ   q32

	LOADS8(VMOVUPD, 64, 0, DI, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

q16loop:
	EDGE_COEF4(VBROADCASTSD, 5, 8, R9, Z8, Z9, Z10, Z11)
	SHLQ         $7, BX
	VMOVUPD      0(DX)(BX*1), Z12
	VMOVUPD      64(DX)(BX*1), Z13
	VFMADD231PD  Z12, Z8, Z0
	VFMADD231PD  Z13, Z8, Z1
	VFMADD231PD  Z12, Z9, Z2
	VFMADD231PD  Z13, Z9, Z3
	VFMADD231PD  Z12, Z10, Z4
	VFMADD231PD  Z13, Z10, Z5
	VFMADD231PD  Z12, Z11, Z6
	VFMADD231PD  Z13, Z11, Z7
	ADDQ         $8, R9
	DECQ         CX
	JNZ          q16loop

	STORES8(VMOVUPD, 64, 0, DI, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	JMP     qdone

q32:
	LOADS8(VMOVUPD, 64, 0, DI, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	LOADS8(VMOVUPD, 64, 512, DI, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

q32loop:
	EDGE_COEF4(VBROADCASTSD, 5, 8, R9, Z16, Z17, Z18, Z19)
	SHLQ         $8, BX
	VMOVUPD      0(DX)(BX*1), Z20
	VMOVUPD      64(DX)(BX*1), Z21
	VMOVUPD      128(DX)(BX*1), Z22
	VMOVUPD      192(DX)(BX*1), Z23
	VFMADD231PD  Z20, Z16, Z0
	VFMADD231PD  Z21, Z16, Z1
	VFMADD231PD  Z22, Z16, Z2
	VFMADD231PD  Z23, Z16, Z3
	VFMADD231PD  Z20, Z17, Z4
	VFMADD231PD  Z21, Z17, Z5
	VFMADD231PD  Z22, Z17, Z6
	VFMADD231PD  Z23, Z17, Z7
	VFMADD231PD  Z20, Z18, Z8
	VFMADD231PD  Z21, Z18, Z9
	VFMADD231PD  Z22, Z18, Z10
	VFMADD231PD  Z23, Z18, Z11
	VFMADD231PD  Z20, Z19, Z12
	VFMADD231PD  Z21, Z19, Z13
	VFMADD231PD  Z22, Z19, Z14
	VFMADD231PD  Z23, Z19, Z15
	ADDQ         $8, R9
	DECQ         CX
	JNZ          q32loop

	STORES8(VMOVUPD, 64, 0, DI, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	STORES8(VMOVUPD, 64, 512, DI, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

qdone:
	VZEROUPPER
	RET

// func aggregate4x16z(o *[4]*float64, coef, y *float64, yw int, edges *[4]*int, src *int, n int)
//
// aggregate4y for 4 destination rows of d = 16 at once, in lock step
// over their first n edges each (AVX-512F): row r's edges are
// edges[r][0..n−1], each row's messages added in its edge order, so
// each element is the same chain of fused multiply-adds as one row's
// kernel gives it; the rows' 8 independent chains keep the FMA units
// busy where one row's 2 wait on each other. The caller checks
// haveAVX512 and the bounds.
TEXT ·aggregate4x16z(SB), NOSPLIT, $0-56
	MOVQ o+0(FP), DI
	MOVQ coef+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ yw+24(FP), R8
	SHLQ $3, R8
	MOVQ edges+32(FP), R15
	MOVQ src+40(FP), R10
	MOVQ n+48(FP), CX
	TESTQ CX, CX
	JZ    a4done
	MOVQ 0(R15), R9
	MOVQ 8(R15), R11
	MOVQ 16(R15), R12
	MOVQ 24(R15), R13
	MOVQ 0(DI), R14
	VMOVUPD 0(R14), Z0
	VMOVUPD 64(R14), Z1
	MOVQ 8(DI), R14
	VMOVUPD 0(R14), Z2
	VMOVUPD 64(R14), Z3
	MOVQ 16(DI), R14
	VMOVUPD 0(R14), Z4
	VMOVUPD 64(R14), Z5
	MOVQ 24(DI), R14
	VMOVUPD 0(R14), Z6
	VMOVUPD 64(R14), Z7

a4loop:
	EDGE_ROW4(VBROADCASTSD, 5, 8, R9, R14, Z8, Z9, Z10, Z11)
	MESSAGE2(VFMADD231PD, 64, R14, Z8, Z9, Z10, Z11, Z0, Z1)
	ADDQ         $8, R9
	EDGE_ROW4(VBROADCASTSD, 5, 8, R11, R14, Z12, Z13, Z14, Z15)
	MESSAGE2(VFMADD231PD, 64, R14, Z12, Z13, Z14, Z15, Z2, Z3)
	ADDQ         $8, R11
	EDGE_ROW4(VBROADCASTSD, 5, 8, R12, R14, Z16, Z17, Z18, Z19)
	MESSAGE2(VFMADD231PD, 64, R14, Z16, Z17, Z18, Z19, Z4, Z5)
	ADDQ         $8, R12
	EDGE_ROW4(VBROADCASTSD, 5, 8, R13, R14, Z20, Z21, Z22, Z23)
	MESSAGE2(VFMADD231PD, 64, R14, Z20, Z21, Z22, Z23, Z6, Z7)
	ADDQ         $8, R13
	DECQ         CX
	JNZ          a4loop

	MOVQ 0(DI), R14
	VMOVUPD Z0, 0(R14)
	VMOVUPD Z1, 64(R14)
	MOVQ 8(DI), R14
	VMOVUPD Z2, 0(R14)
	VMOVUPD Z3, 64(R14)
	MOVQ 16(DI), R14
	VMOVUPD Z4, 0(R14)
	VMOVUPD Z5, 64(R14)
	MOVQ 24(DI), R14
	VMOVUPD Z6, 0(R14)
	VMOVUPD Z7, 64(R14)

a4done:
	VZEROUPPER
	RET

// func aggregate2x32z(o *[2]*float64, coef, y *float64, yw int, edges *[2]*int, src *int, n int)
//
// aggregate4y for 2 destination rows of d = 32 at once, in lock step
// over their first n edges each (AVX-512F): row r's edges are
// edges[r][0..n−1], each row's messages added in its edge order, so
// each element is the same chain of fused multiply-adds as one row's
// kernel gives it; the rows' 8 independent chains keep the FMA units
// busy where one row's 4 wait on each other. The caller checks
// haveAVX512 and the bounds.
TEXT ·aggregate2x32z(SB), NOSPLIT, $0-56
	MOVQ o+0(FP), DI
	MOVQ coef+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ yw+24(FP), R8
	SHLQ $3, R8
	MOVQ edges+32(FP), R15
	MOVQ src+40(FP), R10
	MOVQ n+48(FP), CX
	TESTQ CX, CX
	JZ    a2done
	MOVQ 0(R15), R9
	MOVQ 8(R15), R11
	MOVQ 0(DI), R14
	LOADS4(VMOVUPD, 64, 0, R14, Z0, Z1, Z2, Z3)
	MOVQ 8(DI), R14
	LOADS4(VMOVUPD, 64, 0, R14, Z4, Z5, Z6, Z7)

a2loop:
	EDGE_ROW4(VBROADCASTSD, 5, 8, R9, R14, Z8, Z9, Z10, Z11)
	MESSAGE4(VFMADD231PD, 64, R14, Z8, Z9, Z10, Z11, Z0, Z1, Z2, Z3)
	ADDQ         $8, R9
	EDGE_ROW4(VBROADCASTSD, 5, 8, R11, R14, Z12, Z13, Z14, Z15)
	MESSAGE4(VFMADD231PD, 64, R14, Z12, Z13, Z14, Z15, Z4, Z5, Z6, Z7)
	ADDQ         $8, R11
	DECQ         CX
	JNZ          a2loop

	MOVQ 0(DI), R14
	STORES4(VMOVUPD, 64, 0, R14, Z0, Z1, Z2, Z3)
	MOVQ 8(DI), R14
	STORES4(VMOVUPD, 64, 0, R14, Z4, Z5, Z6, Z7)

a2done:
	VZEROUPPER
	RET

// func reluGrad3y(d1, d2, d3, a, w *float64, gi float64, n int)
//
// reluGrad4y into three rows at once: for j = 0..n−1 in fours (n a
// multiple of 4), d1[j], d2[j] and d3[j] each += gi·w[j] where a[j] > 0,
// unchanged elsewhere; the product is formed once and each sum as
// reluGrad4y forms it, so the bits are three calls' (AVX2).
TEXT ·reluGrad3y(SB), NOSPLIT, $0-56
	MOVQ d1+0(FP), DI
	MOVQ d2+8(FP), R8
	MOVQ d3+16(FP), R9
	MOVQ a+24(FP), SI
	MOVQ w+32(FP), DX
	MOVSD        gi+40(FP), X14
	VBROADCASTSD X14, Y14
	MOVQ n+48(FP), CX
	VXORPD Y15, Y15, Y15
	SHRQ $2, CX
	JZ   g3done

g3loop:
	VMOVUPD   (SI), Y0
	VCMPPD    $0x1e, Y15, Y0, Y1 // a > 0 (ordered: NaN false)
	VMULPD    (DX), Y14, Y2
	VMOVUPD   (DI), Y3
	VADDPD    Y2, Y3, Y4
	VBLENDVPD Y1, Y4, Y3, Y3
	VMOVUPD   Y3, (DI)
	VMOVUPD   (R8), Y5
	VADDPD    Y2, Y5, Y6
	VBLENDVPD Y1, Y6, Y5, Y5
	VMOVUPD   Y5, (R8)
	VMOVUPD   (R9), Y7
	VADDPD    Y2, Y7, Y8
	VBLENDVPD Y1, Y8, Y7, Y7
	VMOVUPD   Y7, (R9)
	ADDQ      $32, DI
	ADDQ      $32, R8
	ADDQ      $32, R9
	ADDQ      $32, SI
	ADDQ      $32, DX
	DECQ      CX
	JNZ       g3loop

g3done:
	VZEROUPPER
	RET

// func fmaRow64z(c *float64, a *float64, inca int, b *float64, ldb, n, k int, zero bool)
//
// fmaRow16 with AVX-512F registers, sixty-four columns at a time for n
// columns (a multiple of 64): eight chains of eight in flight where
// fmaRow16 has four of four, each element the same chain of fused
// multiply-adds over l in order. The caller checks haveAVX512 and the
// bounds.
TEXT ·fmaRow64z(SB), NOSPLIT, $0-57
	ROW_ARGS

r64block:
	FMA_ROW8(VMOVUPD, VPXORQ, VBROADCASTSD, VFMADD231PD, 64, R8, zero+56(FP), Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z10)

	ADDQ $512, DI
	ADDQ $512, DX
	SUBQ $64, BX
	JG   r64block
	VZEROUPPER
	RET

// func fmaRow32(c *float64, a *float64, inca int, b *float64, ldb, n, k int, zero bool)
//
// fmaRow16 thirty-two columns at a time for n columns (a multiple of
// 32): eight chains in flight where sixteen columns leave four, each
// element the same chain of fused multiply-adds over l in order. AVX2
// and FMA: the caller checks haveFMA and the bounds.
TEXT ·fmaRow32(SB), NOSPLIT, $0-57
	ROW_ARGS

r32block:
	FMA_ROW8(VMOVUPD, VXORPD, VBROADCASTSD, VFMADD231PD, 32, R8, zero+56(FP), Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y10)

	ADDQ $256, DI
	ADDQ $256, DX
	SUBQ $32, BX
	JG   r32block
	VZEROUPPER
	RET
