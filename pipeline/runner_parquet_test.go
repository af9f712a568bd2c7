package pipeline

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/schedlab/schedlab/internal/parquettest"
)

// FuzzParquetRows: the row count the runner records for a stage's Parquet
// output is the footer's, or 0, whatever the file's bytes; never a panic
// (parquet-go panics on some corrupt footers).
func FuzzParquetRows(f *testing.F) {
	type row struct {
		ID    string  `parquet:"id"`
		Value float64 `parquet:"value"`
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, []row{{"a", 1}, {"b", 2}, {"c", 3}}); err != nil {
		f.Fatal(err)
	}
	seed := buf.Bytes()
	f.Add(seed)
	rng := rand.New(rand.NewPCG(16, 4))
	for range 8 {
		f.Add(parquettest.CorruptFooter(rng, seed))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "out.parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		n := parquetRows(path)
		if bytes.Equal(data, seed) && n != 3 {
			t.Fatalf("%d rows in the uncorrupted file, want 3", n)
		}
	})
}
