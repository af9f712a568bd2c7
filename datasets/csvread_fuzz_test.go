package datasets

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCSVFile drives the line reader directly (no Parquet, so it runs
// thousands of times faster than the reader fuzz targets): whatever the
// bytes, OpenCSV either refuses the file with a format error or yields rows
// whose line numbers increase, whose raw text is in the input and, for a
// line without quotes, splits back into its fields; the offset ends at the
// file's size.
func FuzzCSVFile(f *testing.F) {
	f.Add([]byte("a,b\n1,2\r\n\n\"x,y\",3\n\"open\n"), false, false)
	f.Add([]byte("\xef\xbb\xbfA3C\tc\t-n\t0\t1\t1\t8"), true, true)
	f.Add([]byte("\x1f\x8b\x08\x00"), false, false)
	f.Fuzz(func(t *testing.T, data []byte, tab, noHeader bool) {
		opt := CSVOptions{NoHeader: noHeader}
		sep := ","
		if tab {
			opt.Comma, sep = '\t', "\t"
		}
		p := writeFile(t, t.TempDir(), "f.csv", string(data))
		c, err := OpenCSV(p, opt)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || !errors.Is(err, ErrFormat) {
				t.Fatalf("OpenCSV: %v", err)
			}
			return
		}
		defer c.Close()
		var last int64
		if !noHeader {
			last = 1
		}
		for {
			row, err := c.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			var bf *BadField
			if err != nil && !errors.As(err, &bf) {
				t.Fatalf("Next: %v", err)
			}
			if row.Line <= last {
				t.Fatalf("line %d after line %d", row.Line, last)
			}
			last = row.Line
			if !strings.Contains(string(data), row.Raw) {
				t.Fatalf("raw %q not in the input", row.Raw)
			}
			if err == nil && !strings.Contains(row.Raw, `"`) && strings.Join(row.Fields, sep) != row.Raw {
				t.Fatalf("fields %q do not rebuild %q", row.Fields, row.Raw)
			}
			// A row handed on is UTF-8 and no wider than the header.
			if err == nil && (!utf8.ValidString(row.Raw) || (!noHeader && len(row.Fields) > len(c.Header()))) {
				t.Fatalf("row %q accepted (%d fields, header %d)", row.Raw, len(row.Fields), len(c.Header()))
			}
		}
		if c.Offset() != int64(len(data)) {
			t.Fatalf("offset %d at the end of %d bytes", c.Offset(), len(data))
		}
	})
}

// ExampleOpenCSV reads a CSV by column name; bad rows come back with the
// reason, to be quarantined.
func ExampleOpenCSV() {
	c, err := OpenCSV("testdata/elasticflow/cluster01.csv", CSVOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	col, err := c.Columns("job_id", "num_gpu")
	if err != nil {
		fmt.Println(err)
		return
	}
	for {
		row, err := c.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		gpus, err := row.Count(col[1], "num_gpu", 0, 1<<20)
		fmt.Printf("line %d: job %s, %d GPUs, err %v\n", row.Line, row.Fields[col[0]], gpus, err)
	}
	// Output:
	// line 2: job abc, 8 GPUs, err <nil>
	// line 3: job def, 1 GPUs, err <nil>
}

// fuzzing reports whether the test binary runs with -test.fuzz, i.e. is
// generating inputs rather than replaying the seed corpus.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// fuzzReader feeds arbitrary file contents to a reader's per-file parse
// function through a JobsIngest whose jobs go to memory and whose
// quarantine is never committed, so that an input costs microseconds, not
// the fsyncs of two committed Parquet files. It must never panic; it either
// fails with an *InputError wrapping ErrFormat (the file as a whole is not
// in the format) or keeps Read = Accepted + Quarantined, and every accepted
// job has an id, a finite non-negative submission time and duration, and
// instances ≥ 1 with non-negative resources. When the seed corpus is
// replayed (go test without -fuzz) each input also goes through the whole
// Reader.Ingest, Parquet files included (runIngest checks the contract).
func fuzzReader(f *testing.F, source, fileName string, ingestFile func(*JobsIngest, string) error) {
	f.Fuzz(func(t *testing.T, data []byte) {
		p := writeFile(t, t.TempDir(), fileName, string(data))
		jobs, acc, err := ingestInMemory(t, source, p, ingestFile)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || !errors.Is(err, ErrFormat) {
				t.Fatalf("error is not a located format error: %v", err)
			}
		} else {
			if err := acc.Check(); err != nil {
				t.Fatal(err)
			}
			if acc.Accepted < int64(len(jobs)) {
				t.Fatalf("%d jobs from %d accepted rows", len(jobs), acc.Accepted)
			}
			ids := map[string]bool{}
			for _, j := range jobs {
				if !(j.SubmitS >= 0) || !(j.DurationS >= 0) || j.DurationS > math.MaxFloat64 || j.JobID == "" || j.Source != source {
					t.Fatalf("accepted job %+v", j)
				}
				if bf := CheckJob(&j); bf != nil || ids[j.JobID] {
					t.Fatalf("accepted job %+v: %v (id seen before: %v)", j, bf, ids[j.JobID])
				}
				ids[j.JobID] = true
				for _, tk := range j.Tasks {
					if tk.Instances < 1 || !(tk.GPU >= 0) || !(tk.CPU >= 0) || !(tk.MemGiB >= 0) {
						t.Fatalf("accepted task %+v", tk)
					}
				}
			}
		}
		if fuzzing() {
			return
		}
		got, err2 := runIngest(t, source, p)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("in memory: %v; Ingest: %v", err, err2)
		}
		if err2 == nil && (got.rep.Total != acc || len(got.jobs) != len(jobs)) {
			t.Fatalf("Ingest %+v (%d jobs), in memory %+v (%d jobs)", got.rep.Total, len(got.jobs), acc, len(jobs))
		}
		for _, r := range got.rejected {
			// The raw text is the line's, unless invalid bytes were
			// escaped; every string is valid UTF-8 either way.
			if r.Line < 1 || r.Reason == "" || len(r.Raw) > MaxRawBytes || !utf8.ValidString(r.Raw) || !utf8.ValidString(r.Reason) ||
				(utf8.Valid(data) && !strings.Contains(string(data), r.Raw)) {
				t.Fatalf("quarantined row %+v", r)
			}
		}
	})
}

// ingestInMemory runs ingestFile on path as IngestJobs would, but collects
// the jobs in memory and aborts the quarantine table instead of committing
// it.
func ingestInMemory(t *testing.T, source, path string, ingestFile func(*JobsIngest, string) error) ([]Job, Accounting, error) {
	req := Request{Inputs: []string{path}, OutDir: t.TempDir()}
	q, err := NewQuarantine(req, source)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Abort()
	var jobs []Job
	ji := &JobsIngest{ctx: context.Background(), req: req, source: source, q: q, report: &Report{Source: source, PerFile: map[string]Accounting{}},
		ids: newJobIDs(), send: func(batch []Job) error { jobs = append(jobs, batch...); return nil }}
	err = ingestFile(ji, path)
	if err == nil {
		err = ji.flush()
	}
	return jobs, ji.report.PerFile[path], err
}
