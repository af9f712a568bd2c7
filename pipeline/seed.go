package pipeline

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"strconv"
)

// Stream is the first part of a random stream's name: the stage or the
// component that draws it. Its owner declares it once, as a constant
// (evaluation.StreamEval, schedulers.Stream, a family's Stage) or from a
// stage's name (StageStream), so that two places that must draw the same
// stream name it alike and no literal names one.
type Stream string

// StageStream is the stream of the stage named name: a stage's own draws
// are keyed by its name (pipeline.Env.Stage).
func StageStream(name string) Stream { return Stream(name) }

// Key is one part of a random stream's name under its Stream. A fixed
// part (what is drawn: "init", "workload") is a constant of type Key that
// its owner declares once, beside the Stream it goes under, so that no
// literal names one; a part that varies with the data (an experiment's
// name, a replicate) is converted where it is drawn, Key(name) or
// Index(r).
type Key string

// Index is the key part of the number i (its decimal digits).
func Index(i int) Key { return Key(strconv.Itoa(i)) }

// Seed derives the two PCG seed words of the random stream named by (run
// seed, stream, key). Distinct keys give independent streams; the same key
// always gives the same stream, whatever the scheduling of goroutines.
func Seed(seed uint64, stream Stream, key ...Key) (uint64, uint64) {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	// Length-prefix every part so that ("ab","c") and ("a","bc") differ.
	part := func(s string) {
		binary.LittleEndian.PutUint64(b[:], uint64(len(s)))
		h.Write(b[:])
		h.Write([]byte(s))
	}
	part(string(stream))
	for _, k := range key {
		part(string(k))
	}
	sum := h.Sum(nil)
	return binary.LittleEndian.Uint64(sum[0:8]), binary.LittleEndian.Uint64(sum[8:16])
}

// RandSource returns the PCG source of the stream named by (seed, stream, key).
func RandSource(seed uint64, stream Stream, key ...Key) *rand.PCG {
	return rand.NewPCG(Seed(seed, stream, key...))
}

// Rand returns a generator over the stream named by (seed, stream, key).
func Rand(seed uint64, stream Stream, key ...Key) *rand.Rand {
	return rand.New(RandSource(seed, stream, key...))
}
