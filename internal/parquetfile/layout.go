package parquetfile

import (
	"reflect"
	"slices"
	"strings"
)

// Without is the fields of the struct type rt but those whose parquet
// column (the name of the `parquet` tag) drop names, in rt's order: the
// row type of an older layout of a table whose columns grew, built with
// reflect.StructOf, which datasets.ReadParquetDefaults reads and the tests
// write (parquettest.WriteWithout).
func Without(rt reflect.Type, drop []string) []reflect.StructField {
	var fields []reflect.StructField
	for i := range rt.NumField() {
		f := rt.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("parquet"), ","); !slices.Contains(drop, name) {
			fields = append(fields, f)
		}
	}
	return fields
}
