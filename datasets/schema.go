package datasets

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// Schema matching: every Parquet file schedlab reads is checked against
// the schema of the rows it is read into before a value is read, because
// parquet-go maps columns by name and reads a column it does not find, or
// one whose nested path is spelt differently, as zeros. A jobs table whose
// tasks list names its element "item", which Arrow and DuckDB read fine,
// would otherwise have no tasks and 0 GPU-hours, and a samples table
// without slowdown would fit a zero model.
//
// The rules, applied recursively to nested groups and lists:
//
//   - Every column of the row type is required in the file, by name (the
//     full dotted path for nested ones, e.g. tasks.list.element.gpu),
//     unless the row type marks it optional (a pointer or an `optional`
//     tag; none of the tables read today has such a column). Columns the
//     row type does not have are ignored.
//   - A leaf's type matches: same physical type and meaning (STRING is
//     BYTE_ARRAY annotated as UTF-8 text; integers are signed or narrower
//     unsigned; timestamps, dates and decimals are not plain numbers), or
//     a lossless widening: INT32 read as INT64, FLOAT read as DOUBLE.
//   - A group is a group, and a list (LIST annotation) a list.
//   - A repeated field stays repeated and a single one single. A column the
//     row type requires may be nullable in the file (DuckDB and Arrow write
//     every column nullable) as long as it holds no null: a null is an
//     error naming the column and row, never a zero.

// checkParquetSchema matches the schema of the file pf against the rows
// of want. It returns an *InputError naming path and the column on the
// first mismatch, and the null checks the file's nullable columns need.
func checkParquetSchema(path string, want parquet.Node, pf *parquet.File) ([]nullCheck, error) {
	checks, _, err := checkParquetSchemaAbsent(path, want, pf, nil)
	return checks, err
}

// checkParquetSchemaAbsent is checkParquetSchema where a top-level column
// of want that absent names (nil: none) may be missing from the file (an
// older layout of a table that grew: Defaults); missing lists those that
// are.
func checkParquetSchemaAbsent(path string, want parquet.Node, pf *parquet.File, absent func(string) bool) (checks []nullCheck, missing []string, err error) {
	m := schemaMatch{path: path, absent: absent}
	if err := m.group(nil, want, pf.Root(), nil); err != nil {
		return nil, nil, err
	}
	return m.checks, m.missing, nil
}

// nullCheck asks for one leaf column of a file to be scanned for
// definition levels that stand for a null where the row type requires a
// value.
type nullCheck struct {
	col  *parquet.Column
	bad  map[int]string // definition level → dotted path of the node that is null
	reps bool           // the column is repeated somewhere: rows start at repetition level 0
}

type schemaMatch struct {
	path   string
	checks []nullCheck
	// absent names the top-level columns the file may lack (nil: none);
	// missing collects those it does.
	absent  func(string) bool
	missing []string
}

func (m *schemaMatch) fail(at []string, format string, args ...any) error {
	return &InputError{File: m.path, Field: strings.Join(at, "."), Err: fmt.Errorf(format+": %w", append(args, ErrFormat)...)}
}

// pendingNull is a file node that is nullable where the row type requires
// it, waiting for the first leaf beneath it, where its nulls show.
type pendingNull struct {
	level int // definition level of a value that is null at this node
	at    string
}

// group matches the fields of want against those of the file column got.
// at is the dotted path of got; pending carries nullable nodes above it.
func (m *schemaMatch) group(at []string, want parquet.Node, got *parquet.Column, pending []pendingNull) error {
	for _, f := range want.Fields() {
		name := f.Name()
		here := append(slices.Clip(at), name)
		var match *parquet.Column
		for _, c := range got.Columns() {
			if c.Name() != name {
				continue
			}
			if match != nil {
				return m.fail(here, "the file has two columns of this name")
			}
			match = c
		}
		if match == nil {
			if f.Optional() {
				continue
			}
			if len(at) == 0 && m.absent != nil && m.absent(name) {
				m.missing = append(m.missing, name)
				continue
			}
			var have []string
			for _, c := range got.Columns() {
				have = append(have, c.Name())
			}
			where := "the file"
			if len(at) > 0 {
				where = strings.Join(at, ".")
			}
			return m.fail(here, "no such column (%s has: %s)", where, strings.Join(have, ", "))
		}
		if err := m.node(here, f, match, pending); err != nil {
			return err
		}
		// A null shows in every leaf beneath the node; scanning one is enough.
		pending = nil
	}
	return nil
}

func (m *schemaMatch) node(at []string, want parquet.Node, got *parquet.Column, pending []pendingNull) error {
	switch {
	case want.Repeated() && !got.Repeated():
		return m.fail(at, "a single value, want a repeated one")
	case !want.Repeated() && got.Repeated():
		return m.fail(at, "a repeated value, want a single one")
	case want.Required() && got.Optional():
		// Definition levels count the nullable and repeated nodes from the
		// root down to this one; a value whose level is this node's own
		// level minus one stopped here, so it is null.
		pending = append(slices.Clip(pending), pendingNull{level: got.MaxDefinitionLevel() - 1, at: strings.Join(at, ".")})
	}
	if want.Leaf() != got.Leaf() {
		if want.Leaf() {
			return m.fail(at, "a group of columns, want a %s column", typeName(want.Type()))
		}
		return m.fail(at, "a %s column, want a group of columns", typeName(got.Type()))
	}
	if !want.Leaf() {
		if isList(want.Type()) != isList(got.Type()) || isMap(want.Type()) != isMap(got.Type()) {
			return m.fail(at, "a %s, want a %s", groupName(got.Type()), groupName(want.Type()))
		}
		return m.group(at, want, got, pending)
	}
	if !leafCompatible(want.Type(), got.Type()) {
		return m.fail(at, "type %s, want %s", typeName(got.Type()), typeName(want.Type()))
	}
	if len(pending) > 0 {
		bad := make(map[int]string, len(pending))
		for _, p := range pending {
			bad[p.level] = p.at
		}
		m.checks = append(m.checks, nullCheck{col: got, bad: bad, reps: got.MaxRepetitionLevel() > 0})
	}
	return nil
}

// leafCompatible reports whether values of the file's type got read into
// want without loss or change of meaning.
func leafCompatible(want, got parquet.Type) bool {
	wk, gk := want.Kind(), got.Kind()
	switch wk {
	case parquet.Int32, parquet.Int64:
		if !plainInt(want) || !plainInt(got) {
			// Not a plain integer (a date, a decimal...): the exact same type.
			return wk == gk && typeName(want) == typeName(got)
		}
		if gk != parquet.Int32 && gk != parquet.Int64 {
			return false
		}
		return intBits(got) < intBits(want) || intBits(got) == intBits(want) && intSigned(got) == intSigned(want)
	case parquet.Double:
		return (gk == parquet.Double || gk == parquet.Float) && got.LogicalType() == nil
	case parquet.ByteArray:
		if isTextType(want) {
			return gk == parquet.ByteArray && isTextType(got)
		}
	}
	return wk == gk && want.Length() == got.Length() && typeName(want) == typeName(got)
}

// plainInt: an integer column with no annotation or an INT one.
func plainInt(t parquet.Type) bool {
	if lt := t.LogicalType(); lt != nil && lt.Value != nil {
		_, ok := lt.Value.(*format.IntType)
		return ok
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.Int8, deprecated.Int16, deprecated.Int32, deprecated.Int64,
			deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
		default:
			return false
		}
	}
	return true
}

// intBits is the width of the values a plain integer column holds (its
// INT annotation's, else its physical type's).
func intBits(t parquet.Type) int {
	if lt := t.LogicalType(); lt != nil {
		if it, ok := lt.Value.(*format.IntType); ok {
			return int(it.BitWidth)
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.Int8, deprecated.Uint8:
			return 8
		case deprecated.Int16, deprecated.Uint16:
			return 16
		case deprecated.Int32, deprecated.Uint32:
			return 32
		}
	}
	if t.Kind() == parquet.Int32 {
		return 32
	}
	return 64
}

func intSigned(t parquet.Type) bool {
	if lt := t.LogicalType(); lt != nil {
		if it, ok := lt.Value.(*format.IntType); ok {
			return it.IsSigned
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
			return false
		}
	}
	return true
}

// isText: BYTE_ARRAY annotated as UTF-8 text (STRING, or the older UTF8
// or ENUM annotations).
func isTextType(t parquet.Type) bool {
	if t.Kind() != parquet.ByteArray {
		return false
	}
	if lt := t.LogicalType(); lt != nil {
		switch lt.Value.(type) {
		case *format.StringType, *format.EnumType:
			return true
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		return *ct == deprecated.UTF8 || *ct == deprecated.Enum
	}
	return false
}

func isList(t parquet.Type) bool {
	if lt := t.LogicalType(); lt != nil {
		if _, ok := lt.Value.(*format.ListType); ok {
			return true
		}
	}
	ct := t.ConvertedType()
	return ct != nil && *ct == deprecated.List
}

func isMap(t parquet.Type) bool {
	if lt := t.LogicalType(); lt != nil {
		if _, ok := lt.Value.(*format.MapType); ok {
			return true
		}
	}
	ct := t.ConvertedType()
	return ct != nil && (*ct == deprecated.Map || *ct == deprecated.MapKeyValue)
}

func groupName(t parquet.Type) string {
	switch {
	case isList(t):
		return "list (LIST group)"
	case isMap(t):
		return "map (MAP group)"
	}
	return "plain group"
}

// typeName describes a leaf type as a user reading the file with DuckDB or
// Arrow would recognise it: the physical type and its annotation.
func typeName(t parquet.Type) string {
	k := t.Kind().String()
	if t.Kind() == parquet.FixedLenByteArray {
		k = fmt.Sprintf("%s(%d)", k, t.Length())
	}
	if lt := t.LogicalType(); lt != nil && lt.Value != nil {
		return k + " " + lt.String()
	}
	if ct := t.ConvertedType(); ct != nil {
		if int(*ct) < len(convertedNames) {
			return k + " " + convertedNames[*ct]
		}
		return fmt.Sprintf("%s (converted type %d)", k, *ct)
	}
	return k
}

// convertedNames are the names of the deprecated ConvertedType annotations,
// by value, as the Parquet format spells them.
var convertedNames = [...]string{
	"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE",
	"TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS",
	"UINT_8", "UINT_16", "UINT_32", "UINT_64", "INT_8", "INT_16", "INT_32",
	"INT_64", "JSON", "BSON", "INTERVAL",
}

// scanNulls reads the definition levels of the columns in checks and
// returns an error naming the first null where the row type requires a
// value. It reads nothing for files whose columns are as the row type
// declares them (the files schedlab writes).
func scanNulls(path string, checks []nullCheck) error {
	for _, c := range checks {
		if err := scanColumnNulls(path, c); err != nil {
			return err
		}
	}
	return nil
}

func scanColumnNulls(path string, c nullCheck) error {
	pages := c.col.Pages()
	defer pages.Close()
	row := int64(0) // rows started so far
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &InputError{File: path, Field: strings.Join(c.col.Path(), "."), Err: err}
		}
		defs, reps := p.DefinitionLevels(), p.RepetitionLevels()
		if c.reps && len(reps) != len(defs) {
			parquet.Release(p)
			return &InputError{File: path, Field: strings.Join(c.col.Path(), "."), Err: fmt.Errorf("corrupt page: %d repetition levels for %d definition levels: %w", len(reps), len(defs), ErrFormat)}
		}
		for i, d := range defs {
			if !c.reps || reps[i] == 0 {
				row++
			}
			if at, ok := c.bad[int(d)]; ok {
				parquet.Release(p)
				return &InputError{File: path, Field: at, Err: fmt.Errorf("null in row %d, where a value is required: %w", row, ErrFormat)}
			}
		}
		parquet.Release(p)
	}
}
