// Macros shared by kernel_amd64.s (float64) and kernel32_amd64.s
// (float32): one body for each shape of kernel, instantiated with the
// instructions of its precision (PD and SD or PS and SS) and the
// registers and width of its vectors (Y: 32 bytes, AVX2; Z: 64 bytes,
// AVX-512F). A macro emits exactly the instructions it replaced, in the
// same order; labels inside a macro are local to the TEXT that uses it,
// so each is used at most once a TEXT.

// FMA_ROWS4 is the loop of fmaRows4 and its kin, after the prologue has
// set DI = c, R12 = C's row stride, SI = a, R10 = A's row stride, R11 =
// 3·R10, DX = b, R9 = B's row stride (all in bytes), BX = columns and CX
// = k. Each block is four rows of C by two vectors (V0..V7), each
// element one chain of fused multiply-adds over l in order, started
// from C's values or, with the byte ZERO set, from +0. ASTEP is what A's
// pointer moves by a step of l, W a vector's bytes and COLS its
// columns times two.
#define FMA_ROWS4(MOVU, XOR, BCAST, FMA, W, COLS, ASTEP, ZERO, V0, V1, V2, V3, V4, V5, V6, V7, B0, B1, A0, A1, A2, A3) \
rows4block: \
	CMPB ZERO, $0; \
	JNE  rows4zero; \
	LEAQ (DI)(R12*2), R13; \
	MOVU (DI), V0; \
	MOVU W(DI), V1; \
	MOVU (DI)(R12*1), V2; \
	MOVU W(DI)(R12*1), V3; \
	MOVU (R13), V4; \
	MOVU W(R13), V5; \
	MOVU (R13)(R12*1), V6; \
	MOVU W(R13)(R12*1), V7; \
	JMP  rows4start; \
rows4zero: \
	ZERO4(XOR, V0, V1, V2, V3); \
	ZERO4(XOR, V4, V5, V6, V7); \
rows4start: \
	MOVQ SI, R13; \
	MOVQ DX, R14; \
	MOVQ CX, AX; \
rows4loop: \
	MOVU  (R14), B0; \
	MOVU  W(R14), B1; \
	BCAST (R13), A0; \
	FMA   B0, A0, V0; \
	FMA   B1, A0, V1; \
	BCAST (R13)(R10*1), A1; \
	FMA   B0, A1, V2; \
	FMA   B1, A1, V3; \
	BCAST (R13)(R10*2), A2; \
	FMA   B0, A2, V4; \
	FMA   B1, A2, V5; \
	BCAST (R13)(R11*1), A3; \
	FMA   B0, A3, V6; \
	FMA   B1, A3, V7; \
	ADDQ  ASTEP, R13; \
	ADDQ  R9, R14; \
	DECQ  AX; \
	JNZ   rows4loop; \
	LEAQ (DI)(R12*2), R13; \
	MOVU V0, (DI); \
	MOVU V1, W(DI); \
	MOVU V2, (DI)(R12*1); \
	MOVU V3, W(DI)(R12*1); \
	MOVU V4, (R13); \
	MOVU V5, W(R13); \
	MOVU V6, (R13)(R12*1); \
	MOVU V7, W(R13)(R12*1); \
	ADDQ $2*W, DI; \
	ADDQ $2*W, DX; \
	SUBQ $COLS, BX; \
	JG   rows4block; \
	VZEROUPPER; \
	RET

// FMA_ROW4 is one block of fmaRow16 and fmaRowf: one row of C by four
// vectors (V0..V3) at DI, each element the chain of fused multiply-adds
// over the k = CX values of A from SI (ASTEP apart) and B's rows from DX
// (R9 apart), started from C's values or, with the byte ZERO set, +0.
// S holds A's value of the step. It leaves the row stored and DI and DX
// where they were.
#define FMA_ROW4(MOVU, XOR, BCAST, FMA, W, ASTEP, ZERO, V0, V1, V2, V3, S) \
	CMPB ZERO, $0; \
	JNE  row4zero; \
	LOADS4(MOVU, W, 0, DI, V0, V1, V2, V3); \
	JMP  row4start; \
row4zero: \
	ZERO4(XOR, V0, V1, V2, V3); \
row4start: \
	MOVQ SI, R13; \
	MOVQ DX, R14; \
	MOVQ CX, AX; \
row4loop: \
	BCAST (R13), S; \
	FMAS4(FMA, W, 0, R14, S, V0, V1, V2, V3); \
	ADDQ  ASTEP, R13; \
	ADDQ  R9, R14; \
	DECQ  AX; \
	JNZ   row4loop; \
	STORES4(MOVU, W, 0, DI, V0, V1, V2, V3)

// ROW_ARGS loads the arguments of fmaRow16, fmaRow32 and fmaRow64z
// (c, a, inca, b, ldb, n, k, zero): C's row to DI, A to SI and its step
// in bytes to R8, B to DX and its row step in bytes to R9, the columns n
// to BX and the depth k to CX.
#define ROW_ARGS \
	MOVQ c+0(FP), DI; \
	MOVQ a+8(FP), SI; \
	MOVQ inca+16(FP), R8; \
	SHLQ $3, R8; \
	MOVQ b+24(FP), DX; \
	MOVQ ldb+32(FP), R9; \
	SHLQ $3, R9; \
	MOVQ n+40(FP), BX; \
	MOVQ k+48(FP), CX

// FMA_ROW8 is FMA_ROW4 with eight registers of W bytes: eight chains in
// flight, the row's 8·W bytes from DI, B's from DX, A's step ASTEP.
#define FMA_ROW8(MOVU, XOR, BCAST, FMA, W, ASTEP, ZERO, V0, V1, V2, V3, V4, V5, V6, V7, S) \
	CMPB ZERO, $0; \
	JNE  row8zero; \
	LOADS8(MOVU, W, 0, DI, V0, V1, V2, V3, V4, V5, V6, V7); \
	JMP  row8start; \
row8zero: \
	ZERO8(XOR, V0, V1, V2, V3, V4, V5, V6, V7); \
row8start: \
	MOVQ SI, R13; \
	MOVQ DX, R14; \
	MOVQ CX, AX; \
row8loop: \
	BCAST (R13), S; \
	FMAS8(FMA, W, 0, R14, S, V0, V1, V2, V3, V4, V5, V6, V7); \
	ADDQ  ASTEP, R13; \
	ADDQ  R9, R14; \
	DECQ  AX; \
	JNZ   row8loop; \
	STORES8(MOVU, W, 0, DI, V0, V1, V2, V3, V4, V5, V6, V7)

// ZERO4 sets four registers to +0 with XOR (VXORPD, VXORPS, VPXORQ, …).
#define ZERO4(XOR, V0, V1, V2, V3) \
	XOR V0, V0, V0; \
	XOR V1, V1, V1; \
	XOR V2, V2, V2; \
	XOR V3, V3, V3

// LOADS4 loads V0..V3 from OFF(B), OFF+W(B), OFF+2W(B), OFF+3W(B); with
// a broadcast for MOVU (W then an element's bytes) it fills each register
// with one element.
#define LOADS4(MOVU, W, OFF, B, V0, V1, V2, V3) \
	MOVU OFF(B), V0; \
	MOVU OFF+W(B), V1; \
	MOVU OFF+2*W(B), V2; \
	MOVU OFF+3*W(B), V3

// STORES4 stores V0..V3 back where LOADS4 loads them from.
#define STORES4(MOVU, W, OFF, B, V0, V1, V2, V3) \
	MOVU V0, OFF(B); \
	MOVU V1, OFF+W(B); \
	MOVU V2, OFF+2*W(B); \
	MOVU V3, OFF+3*W(B)

// FMAS2 adds S times the vectors at OFF(B) and OFF+W(B) into V0 and V1,
// one fused multiply-add each.
#define FMAS2(FMA, W, OFF, B, S, V0, V1) \
	FMA OFF(B), S, V0; \
	FMA OFF+W(B), S, V1

// FMAS4 is FMAS2 for four vectors.
#define FMAS4(FMA, W, OFF, B, S, V0, V1, V2, V3) \
	FMAS2(FMA, W, OFF, B, S, V0, V1); \
	FMAS2(FMA, W, OFF+2*W, B, S, V2, V3)

// LOADS8 and STORES8 are LOADS4 and STORES4 for eight vectors.
#define LOADS8(MOVU, W, OFF, B, V0, V1, V2, V3, V4, V5, V6, V7) \
	LOADS4(MOVU, W, OFF, B, V0, V1, V2, V3); \
	LOADS4(MOVU, W, OFF+4*W, B, V4, V5, V6, V7)

#define STORES8(MOVU, W, OFF, B, V0, V1, V2, V3, V4, V5, V6, V7) \
	STORES4(MOVU, W, OFF, B, V0, V1, V2, V3); \
	STORES4(MOVU, W, OFF+4*W, B, V4, V5, V6, V7)

// FMAS8 is FMAS2 for eight vectors.
#define FMAS8(FMA, W, OFF, B, S, V0, V1, V2, V3, V4, V5, V6, V7) \
	FMAS4(FMA, W, OFF, B, S, V0, V1, V2, V3); \
	FMAS4(FMA, W, OFF+4*W, B, S, V4, V5, V6, V7)

// EDGE_COEF4 reads edge e = (E) and its end s = src[e] (src at R10) into
// AX = 4e·SIZE and BX = s, and broadcasts e's four coefficients
// coef[4e..4e+3] (coef at SI, SIZE bytes each) into C0..C3: the head of
// a step of the aggregate and spread kernels.
#define EDGE_COEF4(BCAST, SHIFT, SIZE, E, C0, C1, C2, C3) \
	MOVQ  (E), AX; \
	MOVQ  (R10)(AX*8), BX; \
	SHLQ  $SHIFT, AX; \
	BCAST 0(SI)(AX*1), C0; \
	BCAST SIZE(SI)(AX*1), C1; \
	BCAST 2*SIZE(SI)(AX*1), C2; \
	BCAST 3*SIZE(SI)(AX*1), C3

// ZERO8 is ZERO4 for eight registers.
#define ZERO8(XOR, V0, V1, V2, V3, V4, V5, V6, V7) \
	ZERO4(XOR, V0, V1, V2, V3); \
	ZERO4(XOR, V4, V5, V6, V7)

// LOADS2 and STORES2 are LOADS4 and STORES4 for two vectors.
#define LOADS2(MOVU, W, OFF, B, V0, V1) \
	MOVU OFF(B), V0; \
	MOVU OFF+W(B), V1

#define STORES2(MOVU, W, OFF, B, V0, V1) \
	MOVU V0, OFF(B); \
	MOVU V1, OFF+W(B)

// EDGE_ROW4 is EDGE_COEF4 that also points ROW at the source's row of y
// (y at DX, rows R8 bytes apart).
#define EDGE_ROW4(BCAST, SHIFT, SIZE, E, ROW, C0, C1, C2, C3) \
	EDGE_COEF4(BCAST, SHIFT, SIZE, E, C0, C1, C2, C3); \
	IMULQ R8, BX; \
	LEAQ  (DX)(BX*1), ROW

// MESSAGE2, MESSAGE4 and MESSAGE8 add one message into a row of two,
// four or eight vectors (V0, …): quarter k of the source's row at ROW
// (the row is 4 quarters of d values) times coefficient Ck, for k = 0..3
// in turn, each element one fused multiply-add a quarter: addMessage's
// chain.
#define MESSAGE2(FMA, W, ROW, C0, C1, C2, C3, V0, V1) \
	FMAS2(FMA, W, 0, ROW, C0, V0, V1); \
	FMAS2(FMA, W, 2*W, ROW, C1, V0, V1); \
	FMAS2(FMA, W, 4*W, ROW, C2, V0, V1); \
	FMAS2(FMA, W, 6*W, ROW, C3, V0, V1)

#define MESSAGE4(FMA, W, ROW, C0, C1, C2, C3, V0, V1, V2, V3) \
	FMAS4(FMA, W, 0, ROW, C0, V0, V1, V2, V3); \
	FMAS4(FMA, W, 4*W, ROW, C1, V0, V1, V2, V3); \
	FMAS4(FMA, W, 8*W, ROW, C2, V0, V1, V2, V3); \
	FMAS4(FMA, W, 12*W, ROW, C3, V0, V1, V2, V3)

#define MESSAGE8(FMA, W, ROW, C0, C1, C2, C3, V0, V1, V2, V3, V4, V5, V6, V7) \
	FMAS8(FMA, W, 0, ROW, C0, V0, V1, V2, V3, V4, V5, V6, V7); \
	FMAS8(FMA, W, 8*W, ROW, C1, V0, V1, V2, V3, V4, V5, V6, V7); \
	FMAS8(FMA, W, 16*W, ROW, C2, V0, V1, V2, V3, V4, V5, V6, V7); \
	FMAS8(FMA, W, 24*W, ROW, C3, V0, V1, V2, V3, V4, V5, V6, V7)

// AGGREGATE2, AGGREGATE4 and AGGREGATE8 are the loop of aggregate4y and
// aggregate4f for a row o (at DI) of two, four or eight vectors: loaded
// into V0, …, every message of the CX edges from R9 on added in edge
// order (MESSAGE, the coefficients in Y8..Y11, the source's row at R11),
// then stored.
#define AGGREGATE2(MOVU, BCAST, FMA, SHIFT, SIZE, W, V0, V1) \
	LOADS2(MOVU, W, 0, DI, V0, V1); \
aggregate2: \
	EDGE_ROW4(BCAST, SHIFT, SIZE, R9, R11, Y8, Y9, Y10, Y11); \
	MESSAGE2(FMA, W, R11, Y8, Y9, Y10, Y11, V0, V1); \
	ADDQ $8, R9; \
	DECQ CX; \
	JNZ  aggregate2; \
	STORES2(MOVU, W, 0, DI, V0, V1)

#define AGGREGATE4(MOVU, BCAST, FMA, SHIFT, SIZE, W, V0, V1, V2, V3) \
	LOADS4(MOVU, W, 0, DI, V0, V1, V2, V3); \
aggregate4: \
	EDGE_ROW4(BCAST, SHIFT, SIZE, R9, R11, Y8, Y9, Y10, Y11); \
	MESSAGE4(FMA, W, R11, Y8, Y9, Y10, Y11, V0, V1, V2, V3); \
	ADDQ $8, R9; \
	DECQ CX; \
	JNZ  aggregate4; \
	STORES4(MOVU, W, 0, DI, V0, V1, V2, V3)

#define AGGREGATE8(MOVU, BCAST, FMA, SHIFT, SIZE, W, V0, V1, V2, V3, V4, V5, V6, V7) \
	LOADS8(MOVU, W, 0, DI, V0, V1, V2, V3, V4, V5, V6, V7); \
aggregate8: \
	EDGE_ROW4(BCAST, SHIFT, SIZE, R9, R11, Y8, Y9, Y10, Y11); \
	MESSAGE8(FMA, W, R11, Y8, Y9, Y10, Y11, V0, V1, V2, V3, V4, V5, V6, V7); \
	ADDQ $8, R9; \
	DECQ CX; \
	JNZ  aggregate8; \
	STORES8(MOVU, W, 0, DI, V0, V1, V2, V3, V4, V5, V6, V7)
