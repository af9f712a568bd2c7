package parquettest

import (
	"os"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/schedlab/schedlab/internal/parquetfile"
)

// WriteWithout writes rows to path as a table of T without the top-level
// columns drop: an older layout of a table whose columns grew, for the
// tests of readers that must still read one. The other columns keep T's
// order, names and types.
func WriteWithout[T any](t testing.TB, path string, rows []T, drop ...string) {
	t.Helper()
	rt := reflect.TypeFor[T]()
	fields := parquetfile.Without(rt, drop)
	if len(fields) == rt.NumField() {
		t.Fatalf("parquettest: WriteWithout: %s has none of the columns %v", rt, drop)
	}
	old := reflect.StructOf(fields)
	f, err := os.Create(path) // a test's own file: no reader waits on it
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := parquet.NewWriter(f, parquet.SchemaOf(reflect.New(old).Interface()))
	for _, r := range rows {
		v, src := reflect.New(old), reflect.ValueOf(r)
		for j, f := range fields {
			v.Elem().Field(j).Set(src.FieldByName(f.Name))
		}
		if err := w.Write(v.Interface()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
