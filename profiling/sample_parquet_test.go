package profiling_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/parquettest"
	"github.com/schedlab/schedlab/profiling"
	"github.com/schedlab/schedlab/profiling/profilingtest"
)

func synthSamples(t testing.TB) []profiling.Sample {
	t.Helper()
	cfg := profiling.DefaultSynthConfig()
	cfg.Samples = 24
	s, err := profiling.Synthesize(context.Background(), cfg, rand.NewPCG(16, 1))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func writeRows[T any](t *testing.T, rows []T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "samples.parquet")
	if err := datasets.WriteParquet(path, datasets.FileMeta{Source: profiling.ProfileSamplesSource}, rows); err != nil {
		t.Fatal(err)
	}
	// Valid Parquet: Arrow reads every row.
	tbl := parquettest.ReadTable(t, path)
	if tbl.NumRows() != int64(len(rows)) {
		t.Fatalf("Arrow reads %d rows, want %d", tbl.NumRows(), len(rows))
	}
	return path
}

// TestReadSamplesSchema: samples whose slowdown or cores_per_socket is
// missing, or whose slowdown is all null, are refused naming the file and
// the column (schedlab fit used to fit them as zeros and exit 0).
func TestReadSamplesSchema(t *testing.T) {
	samples := synthSamples(t)
	noSlow, nullSlow, noCores := profilingtest.Damaged(samples)
	for _, tc := range []struct {
		name, path, column, msg string
	}{
		{"slowdown missing", writeRows(t, noSlow), "slowdown", "no such column"},
		{"slowdown all null", writeRows(t, nullSlow), "slowdown", "null in row 1"},
		{"cores_per_socket missing", writeRows(t, noCores), "cores_per_socket", "no such column"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := profiling.ReadSamples(context.Background(), tc.path)
			var ie *datasets.InputError
			if !errors.As(err, &ie) || ie.File != tc.path || ie.Field != tc.column || !errors.Is(err, datasets.ErrFormat) {
				t.Fatalf("error %v, want an InputError for %s, column %s", err, tc.path, tc.column)
			}
			if s := err.Error(); !strings.Contains(s, tc.path) || !strings.Contains(s, tc.column) || !strings.Contains(s, tc.msg) {
				t.Fatalf("error %q does not name the file and column %s or say %q", s, tc.column, tc.msg)
			}
		})
	}
	// The table as written reads back whole.
	path := writeRows(t, samples)
	got, err := profiling.ReadSamples(context.Background(), path)
	if err != nil || len(got) != len(samples) || got[3].Slowdown != samples[3].Slowdown || len(got[3].CoRunners) != len(samples[3].CoRunners) {
		t.Fatalf("read back %d samples, %v", len(got), err)
	}
}

// FuzzReadSamples: schedlab fit --samples (and the pipeline's fit stage)
// on any bytes reads them or refuses them naming the file, never panics.
// Seeds: a samples table as profiling.WriteSamples writes it, and copies of it with
// a damaged footer.
func FuzzReadSamples(f *testing.F) {
	path := filepath.Join(f.TempDir(), "seed.parquet")
	if err := profiling.WriteSamples(context.Background(), path, datasets.FileMeta{Source: profiling.ProfileSamplesSource}, synthSamples(f)); err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	parquettest.AddSeeds(f, seed, 2)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		parquettest.Check(t, dir, "samples.parquet", data, func(path string) error {
			_, err := profiling.ReadSamples(context.Background(), path)
			return err
		})
	})
}
