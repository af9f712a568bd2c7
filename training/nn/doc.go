// Package nn is a small reverse-mode automatic differentiation library over
// float64 matrices (gonum/mat), with the layers, the Adam optimiser and the
// checkpoint format that schedlab's learned schedulers need.
package nn
