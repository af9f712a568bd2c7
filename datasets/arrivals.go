package datasets

import (
	"github.com/schedlab/schedlab/pipeline"

	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ReadArrivals reads an arrivals table: a Parquet file (name ending in
// .parquet) of Arrival rows, as `schedlab ingest --source
// google-2011` writes, or a CSV file whose header names the columns
// interval, start_s and jobs (in any order, other columns ignored). Rows
// are returned in interval order. Errors name the file, line and column.
// A partitioned google-2011 dataset (IsDataset) stands for its
// arrivals.parquet.
func ReadArrivals(path string) ([]Arrival, error) {
	if dir, ok := IsDataset(path); ok {
		path = filepath.Join(dir, ArrivalsFile)
	}
	var rows []Arrival
	if strings.HasSuffix(strings.ToLower(path), ".parquet") {
		var err error
		if rows, err = ReadParquet[Arrival](path); err != nil {
			return nil, err
		}
	} else {
		var err error
		if rows, err = readArrivalsCSV(path); err != nil {
			return nil, err
		}
	}
	for i, r := range rows {
		if r.Jobs < 0 {
			return nil, fmt.Errorf("%s: row %d (interval %d): jobs = %d, want >= 0", path, i+1, r.Interval, r.Jobs)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no arrivals rows", path)
	}
	slices.SortStableFunc(rows, func(a, b Arrival) int { return cmp.Compare(a.Interval, b.Interval) })
	return rows, nil
}

func readArrivalsCSV(path string) ([]Arrival, error) {
	f, err := pipeline.OpenInput(path, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s:1: header: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(strings.ToLower(h))] = i
	}
	for _, want := range []string{"interval", "start_s", "jobs"} {
		if _, ok := col[want]; !ok {
			return nil, fmt.Errorf("%s:1: header lacks column %q (have %s)", path, want, strings.Join(head, ","))
		}
	}
	var rows []Arrival
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := r.FieldPos(0) // blank lines skipped, so not a count of records
		var a Arrival
		for _, c := range []struct {
			name string
			dst  any
		}{{"interval", &a.Interval}, {"start_s", &a.StartS}, {"jobs", &a.Jobs}} {
			s := strings.TrimSpace(rec[col[c.name]])
			switch d := c.dst.(type) {
			case *int64:
				*d, err = strconv.ParseInt(s, 10, 64)
			case *float64:
				*d, err = strconv.ParseFloat(s, 64)
			}
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %s: %w", path, line, c.name, err)
			}
		}
		// The bounds a Parquet arrivals table is read with: no NaN, ±Inf
		// or negative start, interval or count.
		if bf := CheckRow(&a); bf != nil {
			return nil, &InputError{File: path, Field: bf.Field, Err: fmt.Errorf("line %d: %s: %w", line, bf.Reason, ErrFormat)}
		}
		rows = append(rows, a)
	}
}
