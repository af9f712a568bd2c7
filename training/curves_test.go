package training

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/parquettest"
	"github.com/schedlab/schedlab/sim"
)

// TestCurveRow: Row keeps the run's identity and sets the episode's.
func TestCurveRow(t *testing.T) {
	base := Curve{Family: "dl2", Variant: "dl2", Cluster: "small", PolicyLoss: 9}
	got := base.Row(3, "validation", -1.5, sim.Metrics{MeanJCTS: 120, MeanFeeUSD: 2.5})
	want := Curve{Family: "dl2", Variant: "dl2", Cluster: "small", Episode: 3, Split: "validation", Return: -1.5, MeanJCT: 120, MeanFee: 2.5, PolicyLoss: 9}
	if got != want {
		t.Errorf("Row: %+v, want %+v", got, want)
	}
	if base.Episode != 0 || base.Split != "" {
		t.Errorf("Row changed its receiver: %+v", base)
	}
}

// FuzzReadCurves: the learning curves schedlab train plots and the derived
// tables of a run read (curves.parquet) are read or refused naming the
// file, never a panic, whatever their bytes. Seeds: a curves table as
// WriteCurves writes it, and copies of it with a damaged footer.
func FuzzReadCurves(f *testing.F) {
	var rows []Curve
	for ep := range 6 {
		for _, split := range []string{"train", "validation"} {
			rows = append(rows, Curve{Family: "dl2", Variant: "dl2", Cluster: "small", Episode: int32(ep), Split: split,
				Return: -float64(10 - ep), MeanJCT: 3600 / float64(ep+1), PolicyLoss: 0.5, ValueLoss: 1, Entropy: 0.7})
		}
	}
	path := filepath.Join(f.TempDir(), CurvesFile)
	if err := WriteCurves(path, datasets.FileMeta{Source: "test"}, rows); err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	parquettest.AddSeeds(f, seed, 3)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		parquettest.Check(t, dir, CurvesFile, data, func(path string) error {
			_, err := datasets.ReadParquet[Curve](path)
			return err
		})
	})
}
