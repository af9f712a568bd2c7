// Package csvtable reads the small CSV tables that one package writes and
// another reads back (tables/calibration.csv, eval's failed rows): a
// header that must be exactly the writer's, then records of as many
// fields. It owns the header check, the record loop and the errors' form
// (the file, the line); the caller owns what a record means.
//
// To read another such table, call Read with its header and a function
// that turns one record into a row.
package csvtable

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// Read reads the CSV file at path, whose first line must be header, and
// calls row on each later record, which has len(header) fields; pos gives
// the line and column at which a field of that record starts, for row's
// errors. An error of os.Open is returned as it is (errors.Is with
// os.ErrNotExist holds); the others name path, and the line where they
// can; row's errors are returned as they are.
func Read(path string, header []string, row func(rec []string, pos func(field int) (line, column int)) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = len(header)
	head, err := r.Read()
	if err != nil {
		return fmt.Errorf("%s: header: %w", path, err)
	}
	if !slices.Equal(head, header) {
		return fmt.Errorf("%s: line 1: header %q, want %q", path, head, header)
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := row(rec, r.FieldPos); err != nil {
			return err
		}
	}
}
