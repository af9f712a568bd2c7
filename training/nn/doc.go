// Package nn is schedlab's reverse-mode automatic differentiation over
// float64 matrices, with the layers, optimisers and checkpoint format that
// the learned schedulers (the DAS and MARL-GNN families and the RL
// baselines, under training/) build their networks from.
//
// # Data in and out
//
// Every value is a *Node: a row-major Rows×Cols matrix (Data) with, when
// a parameter depends on it, a gradient of the same shape (Grad). Rows are
// items (jobs, machines, graph nodes), columns features. Values enter in
// two ways:
//
//   - parameters, made by Params.New (usually through a module such as
//     NewLinear), which persist across steps and are what optimisers update
//     and checkpoints store;
//   - constants, copied onto a Tape with Tape.Const (observations, actions,
//     targets, masks as 0/1 matrices).
//
// Operators are methods of Tape (t.MatMul, t.ReLU, t.SelfAttention, ...);
// each computes its result at once and records how to propagate a
// gradient back. Tape.Backward(loss) on a 1×1 loss adds ∂loss/∂θ into
// every parameter's Grad; an Optimizer's Step (Adam, SGD) then updates the
// parameters and clears the gradients. Results leave as Node.Data (or
// Node.At, Node.Scalar); copy what you keep, because Tape.Reset recycles
// every node it made.
//
// A training step is therefore
//
//	t.Reset()
//	loss := model.Loss(&t, t.Const(rows, cols, obs), ...)
//	t.Backward(loss)
//	opt.Step()
//
// and after the first step it reuses the tape's nodes and buffers, so it
// allocates nothing of its own (a large product allocates a little to
// start its worker goroutines).
//
// # Conventions
//
// Shapes are checked when an operator is recorded; a mismatch is a
// programming error and panics with an "nn: " message. Errors in data and
// files (checkpoints, graphs) are returned, wrapped with context; a
// numerical failure inside the graph (a kernel matrix CholSolve cannot
// factorise) is reported by Tape.Err. Element
// (i, j) of an m×n matrix is Data[i*n+j]. Element-wise binary operators
// broadcast their second operand when it is a 1×n row (a bias), an m×1
// column or 1×1. In a matrix product every element is one chain of fused
// multiply-adds over the inner dimension in order (gemm.go): the AVX2
// kernels of kernel_amd64.s where the machine has them, math.FMA
// elsewhere, the same bits either way, and a large product's rows shared
// among one goroutine per core without changing any. Every sum runs in a
// fixed order, so the same seed gives bit-identical parameters at any
// GOMAXPROCS. Randomness (initialisation) comes only
// from the *rand.Rand passed in.
//
// Every operator's gradient is checked against central finite differences
// in gradcheck_test.go.
//
// # Operators
//
// Linear algebra: MatMul, Transpose, AddDiag, CholSolve (K⁻¹Y for the GP).
// Element-wise: Add, Sub, Mul (broadcasting), Minimum, Scale, AddScalar,
// Clamp, ReLU, Tanh, Sigmoid, Exp, Log. Rows: Softmax, MaskedSoftmax, LogSoftmax, LayerNorm. Shape:
// ConcatCols, ConcatRows, SliceRows, SliceCols, GatherRows, Pick.
// Reductions: Sum, Mean, RowSums, RowMeans, ColSums, ColMeans,
// SegmentMeans. Structured:
// SelfAttention (fused multi-head attention within sets of rows, with a key
// mask; SelfAttentionRows computes it only at the query rows a loss
// reads, with the same bits there and in every gradient), EdgeConv (edge-conditioned graph convolution over a Graph),
// Matern52 (kernel matrix). Distributions: GaussianLogProb,
// GaussianEntropy, CategoricalLogProb and CategoricalEntropy (with action
// masks).
//
// Inputs: Const (a copy) and View (the caller's slice, for inputs nothing
// writes before the tape's next Reset).
//
// Modules: Linear, MLP, LayerNorm, MultiHeadAttention, ECC.

// Inference caches (bit-identical to the tape, recomputing only changed
// rows): ECCStack (a stack of ECC layers over one graph), LinearRows;
// their Record methods put a cached pass on a tape for Backward, with the
// gradients of the uncached layers.
// A sequence of passes over inputs that change in few rows (a segment of
// decisions between two updates): ECCSegment computes a stack of ECC
// layers once per version of each row, forward with the tape's bits and
// backward with the steps' summed gradients, where a pass per step covers
// the whole graph every step.
// Item-by-item passes that sum parameter gradients as one batched pass
// would: Tape.DeferGrad and Tape.FlushGrad.
//
// # Checkpoint format
//
// WriteCheckpoint and SaveCheckpoint store a Params as one binary file,
// all integers little-endian:
//
//	offset  size  field
//	0       8     magic "SLNNCKPT"
//	8       4     format version, uint32 (1)
//	12      32    architecture hash: sha256 of the descriptor below
//	44      4     parameter count P, uint32
//	48      ...   descriptor: for each parameter in Params order,
//	              name length (uint16), name (UTF-8), rows (uint32), cols (uint32)
//	...     ...   values: for each parameter in the same order, rows·cols
//	              IEEE-754 float64 bit patterns, row-major
//	end−32  32    sha256 of every byte before it
//
// Values are stored as bits, so a round trip is exact (NaN payloads and
// −0 included). SaveCheckpoint writes a temporary file in the target's
// directory and renames it into place. ReadCheckpoint and LoadCheckpoint
// verify the trailer (ErrCorrupt), the magic and version (ErrVersion) and
// that the file's names and shapes equal the model's (ErrArchMismatch,
// listing every difference) before touching any parameter.
package nn
