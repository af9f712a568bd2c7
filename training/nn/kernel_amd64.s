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
