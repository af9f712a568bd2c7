//go:build race

package nn

// raceEnabled: the race detector does not see into the assembly kernels
// and slows the Go around them about five-fold, so the product tests run
// the AVX-512 path only without it (make test-norace), and TestGemmChains
// checks there only the alpha and beta pairs the package uses, not five.
const raceEnabled = true
