package datasets

import (
	"context"
	"os"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/metadata"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
)

// readArrowTable reads the Parquet file at path with Arrow's pqarrow
// reader, an implementation independent of the one we write with, and
// returns its key/value metadata and its table; both stay valid until the
// test ends. Arrow v15's delta-bit-packing decoder keeps 64-byte scratch
// buffers it never releases, so the reader gets its own allocator: a
// checked one in the test audits only what this package allocates.
func readArrowTable(t *testing.T, path string) (metadata.KeyValueMetadata, arrow.Table) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	pr, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pr.Close() })
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tbl.Release)
	return pr.MetaData().KeyValueMetadata(), tbl
}
