//go:build !noasm && !gccgo && !safe

#include "textflag.h"

// func axpyRows16(c, a *float64, inca int, b *float64, ldb, k int, alpha float64, zero bool)
//
// For l = 0..k−1: tmp = alpha·a[l·inca]; if tmp ≠ 0 (NaN counts as ≠ 0),
// c[0:16] += tmp·b[l·ldb : l·ldb+16]. Each element is rounded as gonum's
// AxpyUnitary rounds it: the product (MULPD, b times tmp), then the sum
// (ADDPD, product plus c), never fused. The 16 values of c stay in
// X0–X7 across the l loop instead of going through memory per l. With
// zero set, c's values start at +0 instead of being loaded, as after
// Dgemm's zeroing of C for beta = 0.
TEXT ·axpyRows16(SB), NOSPLIT, $0-57
	MOVQ  c+0(FP), DI
	MOVQ  a+8(FP), SI
	MOVQ  inca+16(FP), R8
	SHLQ  $3, R8
	MOVQ  b+24(FP), DX
	MOVQ  ldb+32(FP), R9
	SHLQ  $3, R9
	MOVQ  k+40(FP), CX
	MOVSD alpha+48(FP), X10
	XORPD X11, X11

	MOVBLZX zero+56(FP), AX
	TESTQ   AX, AX
	JNZ     zeroc

	MOVUPD 0(DI), X0
	MOVUPD 16(DI), X1
	MOVUPD 32(DI), X2
	MOVUPD 48(DI), X3
	MOVUPD 64(DI), X4
	MOVUPD 80(DI), X5
	MOVUPD 96(DI), X6
	MOVUPD 112(DI), X7
	JMP    start

zeroc:
	XORPD X0, X0
	XORPD X1, X1
	XORPD X2, X2
	XORPD X3, X3
	XORPD X4, X4
	XORPD X5, X5
	XORPD X6, X6
	XORPD X7, X7

start:
	TESTQ CX, CX
	JLE   done

loop:
	MOVSD   (SI), X8
	MULSD   X10, X8   // tmp = a·alpha
	UCOMISD X11, X8
	JNE     add
	JPS     add       // unordered: NaN ≠ 0
	JMP     next

add:
	UNPCKLPD X8, X8   // { tmp, tmp }

	MOVUPD 0(DX), X9
	MULPD  X8, X9
	ADDPD  X0, X9
	MOVAPD X9, X0

	MOVUPD 16(DX), X9
	MULPD  X8, X9
	ADDPD  X1, X9
	MOVAPD X9, X1

	MOVUPD 32(DX), X9
	MULPD  X8, X9
	ADDPD  X2, X9
	MOVAPD X9, X2

	MOVUPD 48(DX), X9
	MULPD  X8, X9
	ADDPD  X3, X9
	MOVAPD X9, X3

	MOVUPD 64(DX), X9
	MULPD  X8, X9
	ADDPD  X4, X9
	MOVAPD X9, X4

	MOVUPD 80(DX), X9
	MULPD  X8, X9
	ADDPD  X5, X9
	MOVAPD X9, X5

	MOVUPD 96(DX), X9
	MULPD  X8, X9
	ADDPD  X6, X9
	MOVAPD X9, X6

	MOVUPD 112(DX), X9
	MULPD  X8, X9
	ADDPD  X7, X9
	MOVAPD X9, X7

next:
	ADDQ R8, SI
	ADDQ R9, DX
	DECQ CX
	JNZ  loop

done:
	MOVUPD X0, 0(DI)
	MOVUPD X1, 16(DI)
	MOVUPD X2, 32(DI)
	MOVUPD X3, 48(DI)
	MOVUPD X4, 64(DI)
	MOVUPD X5, 80(DI)
	MOVUPD X6, 96(DI)
	MOVUPD X7, 112(DI)
	RET

// func dotRows(c, a, b *float64, ldb, n, k int, alpha float64)
//
// For j = 0..n−1: c[j] += alpha·dot(a[0:k], b[j·ldb : j·ldb+k]), the dot
// product summed as gonum's DotUnitary sums it (elements i ≡ 0, 1, 2, 3
// mod 4 into four partial sums, the last k mod 4 terms into the first,
// then (s1 + s3) + (s0 + s2)) and the update rounded as gonum's
// dgemmSerialNotTrans rounds it (dot·alpha, then plus c).
TEXT ·dotRows(SB), NOSPLIT, $0-56
	MOVQ  c+0(FP), DI
	MOVQ  a+8(FP), SI
	MOVQ  b+16(FP), DX
	MOVQ  ldb+24(FP), R9
	SHLQ  $3, R9
	MOVQ  n+32(FP), R10
	MOVQ  k+40(FP), R11
	MOVSD alpha+48(FP), X10
	TESTQ R10, R10
	JLE   ret

	// Two rows of B at a time while there are two: each row's sums are
	// the single row's below, instruction for instruction (the products
	// a times b, the same partial sums in the same order), but the
	// rows' chains of additions overlap and a's values are loaded once.
pairs:
	CMPQ  R10, $2
	JL    jloop
	LEAQ  (DX)(R9*1), R12 // row j+1 of B
	XORPD X7, X7
	XORPD X8, X8
	XORPD X12, X12
	XORPD X13, X13
	XORQ  AX, AX
	MOVQ  R11, CX
	SUBQ  $4, CX
	JL    ptail

ploop4:
	MOVUPD (SI)(AX*8), X0
	MOVUPD 16(SI)(AX*8), X2
	MOVUPD (DX)(AX*8), X1
	MOVUPD 16(DX)(AX*8), X3
	MOVAPD X0, X4
	MOVAPD X2, X5
	MULPD  X1, X4
	MULPD  X3, X5
	ADDPD  X4, X7
	ADDPD  X5, X8
	MOVUPD (R12)(AX*8), X1
	MOVUPD 16(R12)(AX*8), X3
	MULPD  X1, X0
	MULPD  X3, X2
	ADDPD  X0, X12
	ADDPD  X2, X13
	ADDQ   $4, AX
	SUBQ   $4, CX
	JGE    ploop4

ptail:
	ADDQ $4, CX
	JLE  pend

pone:
	MOVSD  (SI)(AX*8), X0
	MOVSD  (DX)(AX*8), X1
	MOVAPD X0, X4
	MULSD  X1, X4
	ADDSD  X4, X7
	MOVSD  (R12)(AX*8), X1
	MULSD  X1, X0
	ADDSD  X0, X12
	INCQ   AX
	DECQ   CX
	JNZ    pone

pend:
	ADDPD    X8, X7
	MOVSD    X7, X0
	UNPCKHPD X7, X7
	ADDSD    X0, X7
	MULSD    X10, X7
	ADDSD    (DI), X7
	MOVSD    X7, (DI)
	ADDPD    X13, X12
	MOVSD    X12, X0
	UNPCKHPD X12, X12
	ADDSD    X0, X12
	MULSD    X10, X12
	ADDSD    8(DI), X12
	MOVSD    X12, 8(DI)
	ADDQ     $16, DI
	LEAQ     (DX)(R9*2), DX
	SUBQ     $2, R10
	JNZ      pairs
	RET

jloop:
	XORPD X7, X7
	XORPD X8, X8
	XORQ  AX, AX
	MOVQ  R11, CX
	SUBQ  $4, CX
	JL    tail

loop4:
	MOVUPD (SI)(AX*8), X0
	MOVUPD (DX)(AX*8), X1
	MOVUPD 16(SI)(AX*8), X2
	MOVUPD 16(DX)(AX*8), X3
	MULPD  X1, X0
	MULPD  X3, X2
	ADDPD  X0, X7
	ADDPD  X2, X8
	ADDQ   $4, AX
	SUBQ   $4, CX
	JGE    loop4

tail:
	ADDQ $4, CX
	JLE  end

one:
	MOVSD (SI)(AX*8), X0
	MOVSD (DX)(AX*8), X1
	MULSD X1, X0
	ADDSD X0, X7
	INCQ  AX
	DECQ  CX
	JNZ   one

end:
	ADDPD    X8, X7
	MOVSD    X7, X0
	UNPCKHPD X7, X7
	ADDSD    X0, X7
	MULSD    X10, X7
	ADDSD    (DI), X7
	MOVSD    X7, (DI)
	ADDQ     $8, DI
	ADDQ     R9, DX
	DECQ     R10
	JNZ      jloop

ret:
	RET

// MESSAGE_SETUP(rows, done) starts addMessage4 and spreadMessage4: the
// four coefficients at SI, each in both halves of X8–X11; the rows of d
// values (CX) after the one at rows in R9, R10 and R11; AX = 0 and CX =
// d/2, the pairs to do, jumping to done when there are none.
#define MESSAGE_SETUP(rows, done) \
	MOVSD    0(SI), X8     \
	UNPCKLPD X8, X8        \
	MOVSD    8(SI), X9     \
	UNPCKLPD X9, X9        \
	MOVSD    16(SI), X10   \
	UNPCKLPD X10, X10      \
	MOVSD    24(SI), X11   \
	UNPCKLPD X11, X11      \
	MOVQ     CX, R8        \
	SHLQ     $3, R8        \
	LEAQ     (rows)(R8*1), R9  \
	LEAQ     (R9)(R8*1), R10   \
	LEAQ     (R10)(R8*1), R11  \
	XORQ     AX, AX        \
	SHRQ     $1, CX        \
	JZ       done

// func addMessage4(o, c, y *float64, d int)
//
// For j = 0..d−1 in pairs (the caller passes d even): o[j] += c[k]·y[k·d+j]
// for k = 0, 1, 2, 3 in turn, each term rounded as gonum's AxpyUnitary
// rounds it (MULPD, y times c[k]; then ADDPD, product plus o), never
// fused: addMessage's loop, two elements per instruction.
TEXT ·addMessage4(SB), NOSPLIT, $0-32
	MOVQ o+0(FP), DI
	MOVQ c+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ d+24(FP), CX

	MESSAGE_SETUP(DX, amdone) // y1, y2, y3 in R9, R10, R11

amloop:
	MOVUPD (DI)(AX*8), X0

	MOVUPD (DX)(AX*8), X1
	MULPD  X8, X1
	ADDPD  X0, X1

	MOVUPD (R9)(AX*8), X2
	MULPD  X9, X2
	ADDPD  X1, X2

	MOVUPD (R10)(AX*8), X3
	MULPD  X10, X3
	ADDPD  X2, X3

	MOVUPD (R11)(AX*8), X4
	MULPD  X11, X4
	ADDPD  X3, X4

	MOVUPD X4, (DI)(AX*8)
	ADDQ   $2, AX
	DECQ   CX
	JNZ    amloop

amdone:
	RET

// SPREAD_ROW(coef, row, p, t) adds coef·gr (gr's pair in X0) to the
// pair of the row of dy at row: p = gr times coef, then p plus dy (t).
#define SPREAD_ROW(coef, row, p, t) \
	MOVAPD X0, p             \
	MULPD  coef, p           \
	MOVUPD (row)(AX*8), t    \
	ADDPD  t, p              \
	MOVUPD p, (row)(AX*8)

// func spreadMessage4(dy, c, gr *float64, d int)
//
// For j = 0..d−1 in pairs (the caller passes d even) and k = 0..3:
// dy[k·d+j] += c[k]·gr[j], rounded as gonum's AxpyUnitary rounds it (MULPD,
// gr times c[k]; then ADDPD, product plus dy): spreadMessage's loop, two
// elements per instruction.
TEXT ·spreadMessage4(SB), NOSPLIT, $0-32
	MOVQ dy+0(FP), DI
	MOVQ c+8(FP), SI
	MOVQ gr+16(FP), DX
	MOVQ d+24(FP), CX

	MESSAGE_SETUP(DI, smdone) // dy1, dy2, dy3 in R9, R10, R11

smloop:
	MOVUPD (DX)(AX*8), X0

	SPREAD_ROW(X8, DI, X1, X5)
	SPREAD_ROW(X9, R9, X2, X6)
	SPREAD_ROW(X10, R10, X3, X7)
	SPREAD_ROW(X11, R11, X4, X5)

	ADDQ $2, AX
	DECQ CX
	JNZ  smloop

smdone:
	RET

// func axpyRows16x4(c *float64, ldc int, a *float64, inca, rowa int, b *float64, ldb, k int, alpha float64, zero bool)
//
// axpyRows16 on four rows of C at once (AVX-512F): row r's 16 values
// start at c[r·ldc], its terms at a[r·rowa + l·inca]. For each l, row
// r adds tmp_r·b[l·ldb : l·ldb+16] where tmp_r = alpha·a_r[l] ≠ 0, each
// element rounded as axpyRows16 (and so gonum's AxpyUnitary) rounds it:
// the product b times tmp, then the sum product plus c, never fused. The
// zero test is a mask (VCMPPD's not-equal-unordered, so NaN adds) on a
// merging VADDPD, so a row whose tmp is 0 keeps its values exactly as
// the branch would. The four rows share B's loads; their eight chains
// of additions (two 512-bit registers a row) overlap.
TEXT ·axpyRows16x4(SB), NOSPLIT, $0-73
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R10
	SHLQ $3, R10
	MOVQ a+16(FP), SI
	MOVQ inca+24(FP), R8
	SHLQ $3, R8
	MOVQ rowa+32(FP), R11
	SHLQ $3, R11
	MOVQ b+40(FP), DX
	MOVQ ldb+48(FP), R9
	SHLQ $3, R9
	MOVQ k+56(FP), CX
	VBROADCASTSD alpha+64(FP), Z30
	VPXORQ       Z31, Z31, Z31

	// Row r's terms: SI, BX, R12, R13; row r of C: DI, AX, DI+2·ldc, AX+2·ldc.
	LEAQ (SI)(R11*1), BX
	LEAQ (BX)(R11*1), R12
	LEAQ (R12)(R11*1), R13
	LEAQ (DI)(R10*1), AX

	MOVBLZX zero+72(FP), R11
	TESTQ   R11, R11
	JNZ     zeroc

	VMOVUPD 0(DI), Z0
	VMOVUPD 64(DI), Z1
	VMOVUPD 0(AX), Z2
	VMOVUPD 64(AX), Z3
	VMOVUPD 0(DI)(R10*2), Z4
	VMOVUPD 64(DI)(R10*2), Z5
	VMOVUPD 0(AX)(R10*2), Z6
	VMOVUPD 64(AX)(R10*2), Z7
	JMP     start

zeroc:
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7

start:
	TESTQ CX, CX
	JLE   done

loop:
	VMOVUPD 0(DX), Z12
	VMOVUPD 64(DX), Z13

	VBROADCASTSD (SI), Z8
	VMULPD       Z30, Z8, Z8    // tmp = a·alpha
	VCMPPD       $4, Z31, Z8, K1 // tmp ≠ 0 or NaN
	VMULPD       Z8, Z12, Z16   // b·tmp
	VMULPD       Z8, Z13, Z17
	VADDPD       Z0, Z16, K1, Z0 // product + c where tmp ≠ 0
	VADDPD       Z1, Z17, K1, Z1

	VBROADCASTSD (BX), Z9
	VMULPD       Z30, Z9, Z9
	VCMPPD       $4, Z31, Z9, K2
	VMULPD       Z9, Z12, Z18
	VMULPD       Z9, Z13, Z19
	VADDPD       Z2, Z18, K2, Z2
	VADDPD       Z3, Z19, K2, Z3

	VBROADCASTSD (R12), Z10
	VMULPD       Z30, Z10, Z10
	VCMPPD       $4, Z31, Z10, K3
	VMULPD       Z10, Z12, Z20
	VMULPD       Z10, Z13, Z21
	VADDPD       Z4, Z20, K3, Z4
	VADDPD       Z5, Z21, K3, Z5

	VBROADCASTSD (R13), Z11
	VMULPD       Z30, Z11, Z11
	VCMPPD       $4, Z31, Z11, K4
	VMULPD       Z11, Z12, Z22
	VMULPD       Z11, Z13, Z23
	VADDPD       Z6, Z22, K4, Z6
	VADDPD       Z7, Z23, K4, Z7

	ADDQ R8, SI
	ADDQ R8, BX
	ADDQ R8, R12
	ADDQ R8, R13
	ADDQ R9, DX
	DECQ CX
	JNZ  loop

done:
	VMOVUPD Z0, 0(DI)
	VMOVUPD Z1, 64(DI)
	VMOVUPD Z2, 0(AX)
	VMOVUPD Z3, 64(AX)
	VMOVUPD Z4, 0(DI)(R10*2)
	VMOVUPD Z5, 64(DI)(R10*2)
	VMOVUPD Z6, 0(AX)(R10*2)
	VMOVUPD Z7, 64(AX)(R10*2)
	VZEROUPPER
	RET

// MESSAGE_SETUP8(rows, done) starts addMessage4z and spreadMessage4z:
// the four coefficients at SI, each in all eight lanes of Z8–Z11; the
// rows of d values (CX) after the one at rows in R9, R10 and R11; AX = 0
// and CX = d/8, the eights to do, jumping to done when there are none.
#define MESSAGE_SETUP8(rows, done) \
	VBROADCASTSD 0(SI), Z8   \
	VBROADCASTSD 8(SI), Z9   \
	VBROADCASTSD 16(SI), Z10 \
	VBROADCASTSD 24(SI), Z11 \
	MOVQ     CX, R8          \
	SHLQ     $3, R8          \
	LEAQ     (rows)(R8*1), R9  \
	LEAQ     (R9)(R8*1), R10   \
	LEAQ     (R10)(R8*1), R11  \
	XORQ     AX, AX          \
	SHRQ     $3, CX          \
	JZ       done

// func addMessage4z(o, c, y *float64, d int)
//
// addMessage4 eight elements per instruction (AVX-512F; the caller
// passes d a multiple of 8): o[j] += c[k]·y[k·d+j] for k = 0..3 in
// turn, each term the product y times c[k], then the sum product plus
// o, never fused.
TEXT ·addMessage4z(SB), NOSPLIT, $0-32
	MOVQ o+0(FP), DI
	MOVQ c+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ d+24(FP), CX

	MESSAGE_SETUP8(DX, amzdone) // y1, y2, y3 in R9, R10, R11

amzloop:
	VMOVUPD (DI)(AX*8), Z0

	VMOVUPD (DX)(AX*8), Z1
	VMULPD  Z8, Z1, Z1
	VADDPD  Z0, Z1, Z1

	VMOVUPD (R9)(AX*8), Z2
	VMULPD  Z9, Z2, Z2
	VADDPD  Z1, Z2, Z2

	VMOVUPD (R10)(AX*8), Z3
	VMULPD  Z10, Z3, Z3
	VADDPD  Z2, Z3, Z3

	VMOVUPD (R11)(AX*8), Z4
	VMULPD  Z11, Z4, Z4
	VADDPD  Z3, Z4, Z4

	VMOVUPD Z4, (DI)(AX*8)
	ADDQ    $8, AX
	DECQ    CX
	JNZ     amzloop

amzdone:
	VZEROUPPER
	RET

// SPREAD_ROW8(coef, row, p, t) adds coef·gr (gr's eight in Z0) to the
// eight of the row of dy at row: p = gr times coef, then p plus dy (t).
#define SPREAD_ROW8(coef, row, p, t) \
	VMULPD  coef, Z0, p      \
	VMOVUPD (row)(AX*8), t   \
	VADDPD  t, p, p          \
	VMOVUPD p, (row)(AX*8)

// func spreadMessage4z(dy, c, gr *float64, d int)
//
// spreadMessage4 eight elements per instruction (AVX-512F; the caller
// passes d a multiple of 8): dy[k·d+j] += c[k]·gr[j] for k = 0..3, the
// product gr times c[k], then the sum product plus dy, never fused.
TEXT ·spreadMessage4z(SB), NOSPLIT, $0-32
	MOVQ dy+0(FP), DI
	MOVQ c+8(FP), SI
	MOVQ gr+16(FP), DX
	MOVQ d+24(FP), CX

	MESSAGE_SETUP8(DI, smzdone) // dy1, dy2, dy3 in R9, R10, R11

smzloop:
	VMOVUPD (DX)(AX*8), Z0

	SPREAD_ROW8(Z8, DI, Z1, Z5)
	SPREAD_ROW8(Z9, R9, Z2, Z6)
	SPREAD_ROW8(Z10, R10, Z3, Z7)
	SPREAD_ROW8(Z11, R11, Z4, Z5)

	ADDQ $8, AX
	DECQ CX
	JNZ  smzloop

smzdone:
	VZEROUPPER
	RET

// DOT_END4(acc, off) finishes two rows' dot products of dotRows4z, row
// j's partial sums (s0, s1, s2, s3) in acc's lanes 0–3 and row j+1's in
// lanes 4–7, as dotRows finishes one: (s0 + s2, s1 + s3), then
// (s1 + s3) + (s0 + s2), times alpha, plus c; c[j] is at off(DI).
#define DOT_END4(acc, off) \
	VPERMPD       $0x4e, acc, Z8 \
	VADDPD        Z8, acc, Z8    \
	VPERMILPD     $0x55, Z8, Z9  \
	VADDPD        Z8, Z9, Z9     \
	VEXTRACTF64X4 $1, Z9, Y11    \
	VMULSD        X14, X9, X9    \
	VADDSD        off(DI), X9, X9 \
	VMOVSD        X9, off(DI)    \
	VMULSD        X14, X11, X11  \
	VADDSD        off+8(DI), X11, X11 \
	VMOVSD        X11, off+8(DI)

// func dotRows4z(c, a, b *float64, ldb, n, k int, alpha float64)
//
// dotRows with n a multiple of 4 and k a multiple of 4 (AVX-512F): four
// rows of B at a time, each row's four partial sums in a 256-bit half
// of a register, so that each gets its products (a times b) in the
// order dotRows adds them; then dotRows' finish, row by row.
TEXT ·dotRows4z(SB), NOSPLIT, $0-56
	MOVQ  c+0(FP), DI
	MOVQ  a+8(FP), SI
	MOVQ  b+16(FP), DX
	MOVQ  ldb+24(FP), R9
	SHLQ  $3, R9
	MOVQ  n+32(FP), R10
	MOVQ  k+40(FP), R11
	SHRQ  $2, R11
	MOVSD alpha+48(FP), X14
	SHRQ  $2, R10
	JZ    dzret
	TESTQ R11, R11
	JZ    dzret

dzrows:
	LEAQ   (DX)(R9*1), R12 // rows j+1, j+2, j+3 of B
	LEAQ   (R12)(R9*1), R13
	LEAQ   (R13)(R9*1), BX
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	XORQ   AX, AX
	MOVQ   R11, CX

dzloop:
	VBROADCASTF64X4 (SI)(AX*8), Z0
	VMOVUPD         (DX)(AX*8), Y1
	VINSERTF64X4    $1, (R12)(AX*8), Z1, Z1
	VMOVUPD         (R13)(AX*8), Y2
	VINSERTF64X4    $1, (BX)(AX*8), Z2, Z2
	VMULPD          Z1, Z0, Z3 // a·b
	VMULPD          Z2, Z0, Z4
	VADDPD          Z3, Z6, Z6 // sums plus products
	VADDPD          Z4, Z7, Z7
	ADDQ            $4, AX
	DECQ            CX
	JNZ             dzloop

	DOT_END4(Z6, 0)
	DOT_END4(Z7, 16)

	ADDQ $32, DI
	LEAQ (DX)(R9*4), DX
	DECQ R10
	JNZ  dzrows

dzret:
	VZEROUPPER
	RET
