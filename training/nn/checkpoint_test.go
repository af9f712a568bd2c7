package nn

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/tiny.ckpt")

func checkpointModel(t *testing.T, hidden int) *Params {
	t.Helper()
	ps := NewParams()
	NewMLP(ps, "actor", []int{3, hidden, 2}, ReLU, rand.New(rand.NewPCG(5, 6)))
	NewLayerNorm(ps, "ln", 2)
	return ps
}

func TestCheckpointRoundTrip(t *testing.T) {
	ps := checkpointModel(t, 4)
	// Values whose bits a text format would lose.
	w := ps.List()[0].Data
	w[0], w[1], w[2], w[3] = math.Copysign(0, -1), math.Inf(1), math.NaN(), math.SmallestNonzeroFloat64
	path := filepath.Join(t.TempDir(), "model.ckpt")
	if err := SaveCheckpoint(path, ps); err != nil {
		t.Fatal(err)
	}
	got := checkpointModel(t, 4)
	for _, p := range got.List() {
		clear(p.Data)
	}
	if err := LoadCheckpoint(path, got); err != nil {
		t.Fatal(err)
	}
	for i, p := range ps.List() {
		for j, v := range p.Data {
			if math.Float64bits(v) != math.Float64bits(got.List()[i].Data[j]) {
				t.Errorf("%s[%d]: %v after round trip, want %v", p.Name, j, got.List()[i].Data[j], v)
			}
		}
	}
	// Saving the loaded model gives the same bytes.
	var a, b bytes.Buffer
	if err := WriteCheckpoint(&a, ps); err != nil {
		t.Fatal(err)
	}
	if err := WriteCheckpoint(&b, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("re-saved checkpoint differs")
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after an atomic save, want only the checkpoint", len(entries))
	}
}

func TestCheckpointRejects(t *testing.T) {
	var good bytes.Buffer
	if err := WriteCheckpoint(&good, checkpointModel(t, 4)); err != nil {
		t.Fatal(err)
	}
	flip := func(off int) []byte {
		b := bytes.Clone(good.Bytes())
		b[off] ^= 1
		return b
	}
	renamed := NewParams()
	NewMLP(renamed, "critic", []int{3, 4, 2}, ReLU, rand.New(rand.NewPCG(5, 6)))
	NewLayerNorm(renamed, "ln", 2)
	cases := []struct {
		name    string
		data    []byte
		model   *Params
		want    error
		mention []string
	}{
		{"flipped value bit", flip(good.Len() - 40), checkpointModel(t, 4), ErrCorrupt, []string{"sha256"}},
		{"flipped trailer bit", flip(good.Len() - 1), checkpointModel(t, 4), ErrCorrupt, nil},
		{"truncated", good.Bytes()[:good.Len()-9], checkpointModel(t, 4), ErrCorrupt, nil},
		{"not a checkpoint", []byte("PAR1 something else entirely, long enough to pass the size check ok"), checkpointModel(t, 4), ErrVersion, nil},
		{"empty", nil, checkpointModel(t, 4), ErrVersion, nil},
		{"other shapes", good.Bytes(), checkpointModel(t, 5), ErrArchMismatch, []string{`"actor.l0.W" is 3x4 in file, 3x5 in model`}},
		{"other names", good.Bytes(), renamed, ErrArchMismatch, []string{`"critic.l0.W" (3x4) missing from file`, `"actor.l0.W" (3x4) in file, not in model`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := make([]float64, 0)
			for _, p := range c.model.List() {
				before = append(before, p.Data...)
			}
			err := ReadCheckpoint(bytes.NewReader(c.data), c.model)
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
			for _, m := range c.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
			var after []float64
			for _, p := range c.model.List() {
				after = append(after, p.Data...)
			}
			for i := range before {
				if math.Float64bits(before[i]) != math.Float64bits(after[i]) {
					t.Fatal("a rejected checkpoint changed the model")
				}
			}
		})
	}
}

func TestLoadCheckpointNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.ckpt")
	if err := os.WriteFile(path, []byte("SLNNCKPT"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := LoadCheckpoint(path, checkpointModel(t, 4))
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v: want ErrCorrupt naming %s", err, path)
	}
}

// goldenModel is the model behind testdata/tiny.ckpt: two small parameters
// with values chosen to cover sign, zero and non-integers.
func goldenModel() *Params {
	ps := NewParams()
	w := ps.New("layer.W", 2, 2)
	copy(w.Data, []float64{1.5, -2, 0, 0.1})
	b := ps.New("layer.b", 1, 2)
	copy(b.Data, []float64{-0.25, 3})
	return ps
}

// TestCheckpointGolden pins the file format: a checkpoint written by an
// earlier version must still read, and writing the same model must give
// the same bytes. If the format changes on purpose, bump
// checkpointVersion and regenerate with -update-golden.
func TestCheckpointGolden(t *testing.T) {
	const path = "testdata/tiny.ckpt"
	var buf bytes.Buffer
	if err := WriteCheckpoint(&buf, goldenModel()); err != nil {
		t.Fatal(err)
	}
	if *updateGolden {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("checkpoint bytes differ from %s", path)
	}
	got := goldenModel()
	for _, p := range got.List() {
		clear(p.Data)
	}
	if err := LoadCheckpoint(path, got); err != nil {
		t.Fatal(err)
	}
	if got.Get("layer.W").At(1, 1) != 0.1 || got.Get("layer.b").At(0, 0) != -0.25 {
		t.Errorf("golden values read back as %v and %v", got.Get("layer.W").Data, got.Get("layer.b").Data)
	}
}

// FuzzReadCheckpoint feeds arbitrary bytes to the reader: it must return
// an error or load, never panic or allocate without bound.
func FuzzReadCheckpoint(f *testing.F) {
	var buf bytes.Buffer
	if err := WriteCheckpoint(&buf, goldenModel()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(checkpointMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		// A fuzzed file only gets past the sha256 check if its trailer was
		// made to match, so also try each input with a valid trailer.
		_ = ReadCheckpoint(bytes.NewReader(data), goldenModel())
		sum := sha256.Sum256(data)
		_ = ReadCheckpoint(bytes.NewReader(append(bytes.Clone(data), sum[:]...)), goldenModel())
	})
}
