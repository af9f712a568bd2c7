package datasets

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
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
