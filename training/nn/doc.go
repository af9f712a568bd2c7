// Package nn is schedlab's reverse-mode automatic differentiation over
// float64 matrices, with the layers, optimisers and checkpoint format that
// the learned schedulers (training/das, dl2, rifling, marl, deepsys) build
// their networks from.
//
// # Data in and out
//
// Every value is a *Node: a row-major Rows×Cols matrix (Data; element
// (i, j) is Data[i*n+j]) with, when a parameter depends on it, a gradient
// of the same shape (Grad). Parameters come from Params.New (usually
// through a module: Linear, MLP, LayerNorm, MultiHeadAttention, ECC) and
// are what optimisers update and checkpoints store; constants enter a
// Tape by Tape.Const (a copy) or Tape.View. Operators are Tape methods
// (MatMul, ReLU, SelfAttention, EdgeConv, Matern52, CholSolve,
// MaskedSoftmax, GaussianLogProb, ...): each computes at once and records
// its backward. A step is
//
//	t.Reset()
//	loss := model.Loss(&t, t.Const(rows, cols, obs), ...)
//	t.Backward(loss) // adds ∂loss/∂θ into every parameter's Grad
//	opt.Step()       // Adam or SGD; clears the gradients
//
// and after the first it allocates nothing of its own. Copy what you keep
// of a Node's Data: Tape.Reset recycles every node it made. Inference
// caches (ECCStack, LinearRows, ECCSegment) recompute only changed rows,
// to the tape's bits, and record their pass for Backward. A
// single-precision path (Matrix32, Gemm32, ECCStack32: inference only so
// far) computes in float32 what its float64 counterpart computes, within
// float32's rounding, not to its bits.
//
// # What it promises
//
//   - Determinism: every sum runs in a fixed order and every product
//     element is one chain of fused multiply-adds in order (the AVX2
//     kernels of kernel_amd64.s or math.FMA, the same bits), so the same
//     seed gives bit-identical parameters at any GOMAXPROCS. Randomness
//     comes only from the *rand.Rand passed in. The float32 path keeps
//     the same contract in float32 (its kernels and fma32, correctly
//     rounded, give the same bits).
//   - Every operator's gradient is checked against central finite
//     differences (gradcheck_test.go).
//   - Shape mismatches are programming errors and panic "nn: ..."; data
//     and file errors are returned, wrapped; a numerical failure inside
//     the graph is Tape.Err.
//   - Checkpoints (WriteCheckpoint, SaveCheckpoint, atomic) store values
//     as IEEE-754 bits, so a round trip is exact; ReadCheckpoint and
//     LoadCheckpoint check the sha256 trailer (ErrCorrupt), magic and
//     version (ErrVersion) and every name and shape (ErrArchMismatch,
//     listing each difference) before touching a parameter. The layout:
//     magic "SLNNCKPT", version uint32 (1), the sha256 of the descriptor,
//     parameter count, the descriptor (per parameter: name length uint16,
//     name, rows, cols), the values row-major, the sha256 of all before;
//     integers little-endian.
//
// # Extending it
//
// An operator is a Tape method that computes its value and pushes its
// backward closure, plus a case in gradcheck_test.go; a module is a
// struct of parameters made by Params.New with a method that records
// operators. Broadcasting: element-wise binary operators accept a 1×n
// row, an m×1 column or a 1×1 second operand.
package nn
