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
// TestNIST checks it against the NIST StRD certified values.
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
// (α1's bound binding); TestVarproMatchesLM holds the two to the same
// minimum.
//
// # Data in and out
//
// In: profile_samples rows (profiling.Sample), reduced by Observations to
// (U_c, C_J, U_p, P_J, S) with bad rows quarantined (never dropped
// silently). Run fits and k-fold cross-validates every model into a Report;
// WriteArtifacts writes coefficients.parquet (CoefficientRow), model.json
// (InterferenceModel, read back by LoadModel) and interference.md (Table III
// as measured, the paper's figures beside them, labelled as the paper's).
// DefaultModel is a documented fit for runs without one. The formula
// exists once, as sim.ExpLinear.SlowdownSums: Predict and SimModel use it.
//
// # GPU-sharing term (gpushare.go, gpushare_report.go, predict.go)
//
// A job's speed, relative to alone, while it shares one GPU with another,
// predicted from the two jobs' standalone GPU utilisation only (u_J, u_C),
// so that it applies to job types never measured in a pair, as trace jobs
// are. Forms (ShareForms): median, linear, bilinear, saturating and
// per-job-type. RunShare fits every form on
// every GPU type and pooled, and validates them: leaving whole job types
// out, whole model families out, k-fold over pairs, across GPU types
// (fit on the others, predict one) and across sources. The simulator's form
// is the standalone one with the least leave-type-out error on V100 (else
// pooled): a choice by held-out error only. The standalone forms' formulas
// are sim.ShareTerm's. WriteAllArtifacts adds gpu_share.md and
// gpu_share_errors.parquet, and model.json's gpu_share; PredictShare and
// PredictSlowdown score any samples (schedlab fit --predict).
//
// A comparison model is a Model in Models; a sharing form, a ShareForm.
// Solver figures: docs/measurements.md, "Fitting".
package fitting
