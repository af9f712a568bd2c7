// Package fitting fits the job interference model of DESIGN.md §3 (an
// exponential CPU term plus a linear PCIe term) and its comparison models by
// nonlinear least squares (Levenberg–Marquardt on gonum/mat), cross-validates
// them, and writes the coefficient artifacts the simulator loads.
package fitting
