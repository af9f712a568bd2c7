package pipeline

import "testing"

func TestRandStreams(t *testing.T) {
	draw := func(seed uint64, stage Stream, key ...Key) [8]uint64 {
		r := Rand(seed, stage, key...)
		var out [8]uint64
		for i := range out {
			out[i] = r.Uint64()
		}
		return out
	}
	a := draw(1, "synth", "jobs")
	if a != draw(1, "synth", "jobs") {
		t.Fatal("the same (seed, stage, key) gave two different streams")
	}
	for name, other := range map[string][8]uint64{
		"other key":   draw(1, "synth", "arrivals"),
		"other stage": draw(1, "fit", "jobs"),
		"other seed":  draw(2, "synth", "jobs"),
		"split parts": draw(1, "synt", "hjobs"),
	} {
		if other == a {
			t.Errorf("%s gave the same stream", name)
		}
	}
	// Index keys a number by its decimal digits, as the literal parts it
	// replaced (strconv.Itoa) did, so that seeds stay where they were.
	if draw(1, "eval", "replicate", Index(12)) != draw(1, "eval", "replicate", "12") {
		t.Error("Index(12) keys a different stream from \"12\"")
	}
}

// TestSeedWords pins the derivation: a stream's words are the first 16
// bytes of sha256(seed, then each part length-prefixed), so that naming a
// stream by a typed constant rather than a literal changes no output.
func TestSeedWords(t *testing.T) {
	for _, c := range []struct {
		seed   uint64
		stream Stream
		key    []Key
		a, b   uint64
	}{
		// Computed apart from this code (Python's hashlib).
		{1, "eval", []Key{"das-table1", "workload"}, 0xa6c13c484528a49e, 0x310b60a47a54b718},
		{7, StageStream("fit"), []Key{"folds"}, 0xc77095dbf437df81, 0xcd5aa0df5f5fd17e},
	} {
		a, b := Seed(c.seed, c.stream, c.key...)
		if a != c.a || b != c.b {
			t.Errorf("Seed(%d, %q, %q) = %#x, %#x, want %#x, %#x", c.seed, c.stream, c.key, a, b, c.a, c.b)
		}
	}
}
