package training

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

type codecInner struct {
	X    float64
	Rows []Curve
}

type codecState struct {
	N     int
	U     uint32
	B     bool
	S     string
	F     []float64
	FF    [][]float64
	Bytes []byte
	In    codecInner
	P     *codecInner
	Nil   []float64
}

// The state encoding keeps every float's bits (−0 and NaN included,
// which gob's zero-omission and JSON lose) and every other field.
func TestStateCodecRoundTrip(t *testing.T) {
	negZero := math.Copysign(0, -1)
	nan := math.Float64frombits(0x7ff8000000000abc)
	in := codecState{N: -3, U: 7, B: true, S: "dl2@ab", F: []float64{negZero, nan, math.Inf(-1), 1.5},
		FF: [][]float64{{1}, {}, nil}, Bytes: []byte{0, 1, 2},
		In: codecInner{X: negZero, Rows: []Curve{{Family: "das", Episode: 3, Return: negZero, MeanJCT: nan}}},
		P:  &codecInner{X: 2}}
	b, err := marshalState(in)
	if err != nil {
		t.Fatal(err)
	}
	var out codecState
	if err := unmarshalState(b, &out); err != nil {
		t.Fatal(err)
	}
	b2, _ := marshalState(out)
	if string(b) != string(b2) {
		t.Fatal("re-encoding the decoded state gives other bytes")
	}
	if math.Float64bits(out.F[0]) != math.Float64bits(negZero) || math.Float64bits(out.F[1]) != math.Float64bits(nan) ||
		math.Float64bits(out.In.X) != math.Float64bits(negZero) || math.Float64bits(out.In.Rows[0].Return) != math.Float64bits(negZero) {
		t.Errorf("float bits changed: %v %v %v", out.F, out.In.X, out.In.Rows[0].Return)
	}
	out.F, in.F = nil, nil // NaN ≠ NaN for DeepEqual; compared above
	out.In.Rows[0].MeanJCT, in.In.Rows[0].MeanJCT = 0, 0
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip:\n in %+v\nout %+v", in, out)
	}
	for cut := range len(b) {
		if err := unmarshalState(b[:cut], &out); err == nil {
			t.Fatalf("a state cut to %d of %d bytes decoded", cut, len(b))
		}
	}
	type hidden struct{ x int }
	if _, err := marshalState(hidden{}); err == nil {
		t.Error("a struct with an unexported field encoded (its state would be lost)")
	}
}

// A saved state is found by its family and variant only; the random
// stream continues where it was saved.
func TestResumeLoadState(t *testing.T) {
	var saved []byte
	r := &Resume{Load: func() ([]byte, error) { return saved, nil },
		Save: func(done, total int, st []byte) error { saved = st; return nil }}
	if _, ok, err := r.LoadState("das", "das@x", &codecInner{}); ok || err != nil {
		t.Fatalf("nothing saved: ok %v, err %v", ok, err)
	}
	src := rand.NewPCG(1, 2)
	rand.New(src).Uint64()
	type st struct{ RNG []byte }
	if err := r.SaveState("das", "das@x", 4, 10, st{RandState(src)}); err != nil {
		t.Fatal(err)
	}
	want := rand.New(src).Uint64()
	var got st
	done, ok, err := r.LoadState("das", "das@x", &got)
	if err != nil || !ok || done != 4 {
		t.Fatalf("done %d, ok %v, err %v", done, ok, err)
	}
	again := rand.NewPCG(0, 0)
	if err := SetRandState(again, got.RNG); err != nil {
		t.Fatal(err)
	}
	if v := rand.New(again).Uint64(); v != want {
		t.Errorf("restored stream draws %d, want %d", v, want)
	}
	if _, _, err := r.LoadState("das", "das@y", &got); !errors.Is(err, ErrResumeMismatch) {
		t.Errorf("another variant's state: %v, want ErrResumeMismatch", err)
	}
	if _, _, err := r.LoadState("dl2", "das@x", &got); !errors.Is(err, ErrResumeMismatch) {
		t.Errorf("another family's state: %v, want ErrResumeMismatch", err)
	}
	var nilR *Resume
	if err := nilR.SaveState("das", "x", 1, 1, st{}); err != nil {
		t.Error(err)
	}
}
