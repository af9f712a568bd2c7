package pipeline

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
)

// Seed derives the two PCG seed words of the random stream named by (run
// seed, stage, key). Distinct keys give independent streams; the same key
// always gives the same stream, whatever the scheduling of goroutines.
func Seed(seed uint64, stage string, key ...string) (uint64, uint64) {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	// Length-prefix every part so that ("ab","c") and ("a","bc") differ.
	for _, s := range append([]string{stage}, key...) {
		binary.LittleEndian.PutUint64(b[:], uint64(len(s)))
		h.Write(b[:])
		h.Write([]byte(s))
	}
	sum := h.Sum(nil)
	return binary.LittleEndian.Uint64(sum[0:8]), binary.LittleEndian.Uint64(sum[8:16])
}

// RandSource returns the PCG source of the stream named by (seed, stage, key).
func RandSource(seed uint64, stage string, key ...string) *rand.PCG {
	return rand.NewPCG(Seed(seed, stage, key...))
}

// Rand returns a generator over the stream named by (seed, stage, key).
func Rand(seed uint64, stage string, key ...string) *rand.Rand {
	return rand.New(RandSource(seed, stage, key...))
}
