package pipeline

import "testing"

func TestRandStreams(t *testing.T) {
	draw := func(seed uint64, stage string, key ...string) [8]uint64 {
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
}
