//go:build !noasm && !gccgo && !safe

#include "textflag.h"

// The constants of math.archExp (math/exp_amd64.s), in its order, then
// the ones its instructions take as immediates.
DATA vexpdata<>+0(SB)/8, $0.5
DATA vexpdata<>+8(SB)/8, $1.0
DATA vexpdata<>+16(SB)/8, $2.0
DATA vexpdata<>+24(SB)/8, $1.6666666666666666667e-1
DATA vexpdata<>+32(SB)/8, $4.1666666666666666667e-2
DATA vexpdata<>+40(SB)/8, $8.3333333333333333333e-3
DATA vexpdata<>+48(SB)/8, $1.3888888888888888889e-3
DATA vexpdata<>+56(SB)/8, $1.9841269841269841270e-4
DATA vexpdata<>+64(SB)/8, $2.4801587301587301587e-5
DATA vexpdata<>+72(SB)/8, $1.4426950408889634073599246810018920
DATA vexpdata<>+80(SB)/8, $0.69314718055966295651160180568695068359375
DATA vexpdata<>+88(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA vexpdata<>+96(SB)/8, $0.0625
DATA vexpdata<>+104(SB)/8, $0x3FF
GLOBL vexpdata<>+0(SB), RODATA, $112

// HORNER is a step of exp4y's polynomial by Horner's rule: Y2 = Y2·Y0 +
// the constant at vexpdata+OFF, one fused multiply-add.
#define HORNER(OFF) \
	VBROADCASTSD vexpdata<>+OFF(SB), Y4; \
	VFMADD213PD  Y4, Y0, Y2

// SQUARE_STEP is Y0 = Y0·Y2, then Y2 = Y0 + 2 (Y12 holds 2): with Y0 = r
// and Y2 = 2 + r it squares 1 + r, as r·(2 + r), archExp's steps.
#define SQUARE_STEP \
	VMULPD Y2, Y0, Y0; \
	VADDPD Y12, Y0, Y2

// func exp4y(x *float64, n int)
//
// x[j] = exp(x[j]) for j < n (a multiple of 4), four at a time: the
// fused multiply-add path of math.archExp step for step, each lane
// rounded as it rounds one value, so the bits are math.Exp's. The caller
// checks haveFMA and that every x[j] is in [−708, 0], where archExp
// takes neither its special cases nor its denormal scaling (AVX2, FMA).
TEXT ·exp4y(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), DI
	MOVQ n+8(FP), CX
	SHRQ $2, CX
	JZ   edone
	VBROADCASTSD vexpdata<>+72(SB), Y8  // log2(e)
	VBROADCASTSD vexpdata<>+80(SB), Y9  // ln 2, upper part
	VBROADCASTSD vexpdata<>+88(SB), Y10 // ln 2, lower part
	VBROADCASTSD vexpdata<>+96(SB), Y11 // 1/16
	VBROADCASTSD vexpdata<>+16(SB), Y12 // 2
	VBROADCASTSD vexpdata<>+8(SB), Y13  // 1
	VPBROADCASTQ vexpdata<>+104(SB), Y14 // exponent bias

eloop:
	VMOVUPD    (DI), Y0
	VMULPD     Y8, Y0, Y1
	VCVTPD2DQY Y1, X3      // k = round(x·log2 e), to nearest even
	VCVTDQ2PD  X3, Y1
	VFNMADD231PD Y9, Y1, Y0  // x −= k·ln2U
	VFNMADD231PD Y10, Y1, Y0 // x −= k·ln2L
	VMULPD     Y11, Y0, Y0
	VBROADCASTSD vexpdata<>+64(SB), Y2
	HORNER(56)
	HORNER(48)
	HORNER(40)
	HORNER(32)
	HORNER(24)
	HORNER(0)
	VFMADD213PD Y13, Y0, Y2
	SQUARE_STEP // four squarings of (1 + r)
	SQUARE_STEP
	SQUARE_STEP
	SQUARE_STEP
	VFMADD213PD Y13, Y2, Y0
	VPMOVSXDQ  X3, Y3      // 2^k = (k + 1023) << 52
	VPADDQ     Y14, Y3, Y3
	VPSLLQ     $52, Y3, Y3
	VMULPD     Y3, Y0, Y0
	VMOVUPD    Y0, (DI)
	ADDQ       $32, DI
	DECQ       CX
	JNZ        eloop
	VZEROUPPER

edone:
	RET

// func adam4y(p, grad, m, v *float64, n int, c *adamCoefs)
//
// For j < n (a multiple of 4), four at a time, Adam.Step's update as its
// Go loop rounds it (no fused multiply-add; division and square root are
// correctly rounded, so the bits are the same):
//
//	m = β1·m + (1−β1)·g,  v = β2·v + ((1−β2)·g)·g  (g = grad),
//	p = p − (lr·(m/bc1)) / (√(v/bc2) + ε),  grad = 0.
//
// c holds β1, 1−β1, β2, 1−β2, lr, bc1, bc2, ε (AVX2).
TEXT ·adam4y(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ m+16(FP), DX
	MOVQ v+24(FP), R8
	MOVQ n+32(FP), CX
	MOVQ c+40(FP), AX
	SHRQ $2, CX
	JZ   adone
	VBROADCASTSD 0(AX), Y8   // β1
	VBROADCASTSD 8(AX), Y9   // 1−β1
	VBROADCASTSD 16(AX), Y10 // β2
	VBROADCASTSD 24(AX), Y11 // 1−β2
	VBROADCASTSD 32(AX), Y12 // lr
	VBROADCASTSD 40(AX), Y13 // bc1
	VBROADCASTSD 48(AX), Y14 // bc2
	VBROADCASTSD 56(AX), Y15 // ε
	VXORPD Y7, Y7, Y7

aloop:
	VMOVUPD (SI), Y0         // g
	VMULPD  (DX), Y8, Y1     // β1·m
	VMULPD  Y0, Y9, Y2       // (1−β1)·g
	VADDPD  Y2, Y1, Y1       // m
	VMOVUPD Y1, (DX)
	VMULPD  (R8), Y10, Y3    // β2·v
	VMULPD  Y0, Y11, Y4      // (1−β2)·g
	VMULPD  Y0, Y4, Y4       // ·g
	VADDPD  Y4, Y3, Y3       // v
	VMOVUPD Y3, (R8)
	VDIVPD  Y13, Y1, Y1      // m/bc1
	VMULPD  Y1, Y12, Y1      // lr·(m/bc1)
	VDIVPD  Y14, Y3, Y3      // v/bc2
	VSQRTPD Y3, Y3
	VADDPD  Y15, Y3, Y3
	VDIVPD  Y3, Y1, Y1
	VMOVUPD (DI), Y5
	VSUBPD  Y1, Y5, Y5
	VMOVUPD Y5, (DI)
	VMOVUPD Y7, (SI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, R8
	DECQ    CX
	JNZ     aloop
	VZEROUPPER

adone:
	RET
