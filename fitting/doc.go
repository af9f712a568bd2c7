// Package fitting fits the job interference model of DESIGN.md §3 (an
// exponential CPU term plus a linear PCIe term) and its comparison models by
// nonlinear least squares, cross-validates them, and writes the coefficient
// artifacts the simulator loads.
//
// # Solver
//
// Minimize is Levenberg–Marquardt written on gonum (gonum has none): one
// Householder QR of the Jacobian per iteration (LAPACK Dgeqrf/Dormqr via
// gonum's lapack64), damped steps from a small QR of [R; √μ·D] (never the
// normal equations), Moré's column scaling D, Nielsen's damping update,
// box bounds by projection, analytic or finite-difference (forward or
// central) Jacobians, a Status that says which criterion stopped it
// (or that none did), and the covariance s²(JᵀJ)⁻¹ → standard errors.
// It reproduces the NIST StRD certified values (TestNIST) to ≥ 6 digits
// from both starts on every lower- and average-difficulty problem, and 14
// of the 16 higher-difficulty starts (BoxBOD and MGH10 from start 1 fail).
// LinearLeastSquares solves linear problems by QR (gonum mat.QR) with a
// scaled rank test that reports ErrSingular.
//
// # Models
//
// Models lists the five of the MARL paper's Table III: TRACON-linear,
// TRACON-quadratic, ours, ours without PCIe, ours without CPU. Linear ones
// are solved by QR; the exponential ones from a grid start by variable
// projection (varpro.go: Newton over the two exponents with the reduced
// functional's exact Hessian, the linear coefficients solved by QR at
// every step), or by LM over all parameters where that does not apply
// (α1's bound binding). Against LM over all parameters, variable
// projection reaches the same minimum (sums of squares equal to 1e-13
// relative, TestVarproMatchesLM) in about half the iterations, each one
// pass over the observations; fitbench (internal/fitbench) times the five
// fits against SciPy's curve_fit on the same data and starts.
//
// # Data in and out
//
// In: profile_samples rows (profiling.Sample), reduced by Observations to
// (U_c, C_J, U_p, P_J, S) with bad rows quarantined (never dropped
// silently). Run fits and k-fold cross-validates every model into a Report;
// WriteArtifacts writes coefficients.parquet (CoefficientRow), model.json
// (InterferenceModel, read back by LoadModel) and interference.md (Table III
// as measured, the paper's figures beside them, labelled as the paper's).
// DefaultModel is a documented fit for runs without one.
package fitting
