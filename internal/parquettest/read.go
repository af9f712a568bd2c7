package parquettest

import (
	"context"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/metadata"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
)

// ReadTable reads the Parquet file at path with Arrow's own reader, the
// check that a file schedlab writes is readable by other tools, and
// fails t if it cannot. The table is released, and the file closed, when
// t ends. It uses Go's plain allocator: arrow v15's decoder does not
// release every buffer it takes (datasets/jobs_test.go), so a checked
// allocator would report leaks that are not the writer's.
func ReadTable(t testing.TB, path string) arrow.Table {
	t.Helper()
	_, tbl := ReadTableMeta(t, path)
	return tbl
}

// ReadTableMeta is ReadTable that also returns the file's key/value
// metadata as Arrow's reader finds it.
func ReadTableMeta(t testing.TB, path string) (metadata.KeyValueMetadata, arrow.Table) {
	t.Helper()
	f, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	t.Cleanup(func() { f.Close() })
	rd, err := pqarrow.NewFileReader(f, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tbl, err := rd.ReadTable(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	t.Cleanup(tbl.Release)
	return f.MetaData().KeyValueMetadata(), tbl
}
