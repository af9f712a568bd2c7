package datasets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/shareddata"
)

// sharedData is shareddata.Path: the real traces, or a skip.
func sharedData(t testing.TB, rel string) string { return shareddata.Path(t, rel) }

// writeFile writes content to dir/name and returns the path.
func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ingested is what an ingest left behind.
type ingested struct {
	rep      *Report
	jobs     []Job
	rejected []Rejected
	out      string // the directory ingested into
}

// ingestReal ingests rel, a real trace of the shared data folder (the
// test is skipped where it is absent), with source's reader, and returns
// what was ingested and rel's path.
func ingestReal(t testing.TB, source, rel string) (ingested, string) {
	t.Helper()
	path := sharedData(t, rel)
	return ingestOK(t, source, path), path
}

// ingestOK ingests inputs with the reader of source (runIngest), which
// must succeed.
func ingestOK(t testing.TB, source string, inputs ...string) ingested {
	t.Helper()
	got, err := runIngest(t, source, inputs...)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// checkFixture ingests a hand-written fixture with the reader of source
// and compares the jobs with want; it returns what was ingested, for the
// caller's other checks.
func checkFixture(t testing.TB, source, input string, want []Job) ingested {
	t.Helper()
	got := ingestOK(t, source, input)
	if !reflect.DeepEqual(got.jobs, want) {
		t.Fatalf("jobs\n got %+v\nwant %+v", got.jobs, want)
	}
	return got
}

// refusedFile ingests path with the reader of source, which must refuse
// the whole file: an *InputError naming path and wrapping ErrFormat
// (runIngest checks that nothing was left behind). It returns the error
// for the caller's checks of the column or line.
func refusedFile(t testing.TB, source, path string) *InputError {
	t.Helper()
	_, err := runIngest(t, source, path)
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != path || !errors.Is(err, ErrFormat) {
		t.Fatalf("err %v, want an InputError for %s wrapping ErrFormat", err, path)
	}
	return ie
}

// runIngest ingests inputs with the reader of source into a fresh
// directory and checks the Reader contract: accounting holds per file and
// in total, jobs.parquet holds the accepted jobs (all with the source set)
// and quarantine.parquet the quarantined rows, and progress ends at the
// total.
func runIngest(t testing.TB, source string, inputs ...string) (ingested, error) {
	t.Helper()
	r, err := Lookup(source)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var lastDone, lastTotal int64
	rep, err := r.Ingest(context.Background(), Request{Inputs: inputs, OutDir: out,
		Progress: func(done, total int64) {
			if done < lastDone {
				t.Errorf("progress went back from %d to %d", lastDone, done)
			}
			lastDone, lastTotal = done, total
		}})
	if err != nil {
		for _, name := range []string{JobsFile, QuarantineFile, ClusterFile} {
			if _, serr := os.Stat(filepath.Join(out, name)); serr == nil {
				t.Errorf("failed ingest left %s behind", name)
			}
		}
		return ingested{}, err
	}
	if err := rep.Total.Check(); err != nil {
		t.Fatal(err)
	}
	var sum Accounting
	for _, f := range rep.Files() {
		a := rep.PerFile[f]
		if err := a.Check(); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		sum.Add(a)
	}
	if sum != rep.Total {
		t.Fatalf("per-file sum %+v ≠ total %+v", sum, rep.Total)
	}
	if lastDone != lastTotal {
		t.Errorf("progress ended at %d of %d bytes", lastDone, lastTotal)
	}
	got := ingested{rep: rep, out: out}
	if got.jobs, err = ReadParquet[Job](filepath.Join(out, JobsFile)); err != nil {
		t.Fatal(err)
	}
	if got.rejected, err = ReadParquet[Rejected](filepath.Join(out, QuarantineFile)); err != nil {
		t.Fatal(err)
	}
	if int64(len(got.rejected)) != rep.Total.Quarantined {
		t.Fatalf("quarantine holds %d rows, report says %d", len(got.rejected), rep.Total.Quarantined)
	}
	for _, j := range got.jobs {
		if j.Source != source {
			t.Fatalf("job %s has source %q", j.JobID, j.Source)
		}
	}
	return got, nil
}

// badRow is one malformed-input case: a data row (after the fixture's
// header) and the field its quarantine row must name.
type badRow struct {
	name, row, field, reason string
}

// checkMalformed ingests a file of header + one good row + each bad row,
// and checks that every bad row is quarantined with its line and field and
// the good one accepted.
func checkMalformed(t *testing.T, source, fileName, header, good string, bad []badRow) {
	t.Helper()
	var b strings.Builder
	if header != "" {
		b.WriteString(header + "\n")
	}
	b.WriteString(good + "\n")
	first := int64(strings.Count(b.String(), "\n")) + 1
	for _, c := range bad {
		b.WriteString(c.row + "\n")
	}
	path := writeFile(t, t.TempDir(), fileName, b.String())
	got, err := runIngest(t, source, path)
	if err != nil {
		t.Fatal(err)
	}
	want := Accounting{Read: int64(1 + len(bad)), Accepted: 1, Quarantined: int64(len(bad))}
	if got.rep.Total != want {
		t.Errorf("accounting %+v, want %+v", got.rep.Total, want)
	}
	byLine := map[int64]Rejected{}
	for _, r := range got.rejected {
		byLine[r.Line] = r
		if r.File != path || r.Source != source {
			t.Errorf("rejected row %+v: wrong file or source", r)
		}
	}
	for i, c := range bad {
		r, ok := byLine[first+int64(i)]
		if !ok {
			t.Errorf("%s: line %d not quarantined", c.name, first+int64(i))
			continue
		}
		if r.Field != c.field || !strings.Contains(r.Reason, c.reason) || r.Raw != c.row {
			t.Errorf("%s: quarantined as field %q reason %q raw %q; want field %q, reason containing %q", c.name, r.Field, r.Reason, r.Raw, c.field, c.reason)
		}
	}
}

func TestOpenCSV(t *testing.T) {
	dir := t.TempDir()
	t.Run("bom crlf quotes blank lines", func(t *testing.T) {
		p := writeFile(t, dir, "a.csv", "\xef\xbb\xbfA,b\r\n1,\"x,y\"\r\n\r\n2,\"open\n3,z")
		c, err := OpenCSV(p, CSVOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if col, err := c.Columns("a", "B"); err != nil || !reflect.DeepEqual(col, []int{0, 1}) {
			t.Fatalf("columns %v %v", col, err)
		}
		type row struct {
			line   int64
			fields []string
			bad    bool
		}
		var rows []row
		for {
			r, err := c.Next()
			if err != nil && !errors.As(err, new(*BadField)) {
				break
			}
			rows = append(rows, row{r.Line, append([]string(nil), r.Fields...), err != nil})
		}
		want := []row{{2, []string{"1", "x,y"}, false}, {4, nil, true}, {5, []string{"3", "z"}, false}}
		if !reflect.DeepEqual(rows, want) {
			t.Fatalf("rows %+v, want %+v", rows, want)
		}
		if c.Offset() != int64(len("\xef\xbb\xbfA,b\r\n1,\"x,y\"\r\n\r\n2,\"open\n3,z")) {
			t.Errorf("offset %d", c.Offset())
		}
	})
	t.Run("missing column", func(t *testing.T) {
		c, err := OpenCSV(writeFile(t, dir, "b.csv", "x,y\n1,2\n"), CSVOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, err = c.Columns("x", "z")
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != "z" || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "b.csv") {
			t.Fatalf("err %v", err)
		}
	})
	for name, content := range map[string]string{"empty": "", "gzip": "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", "latin1": "caf\xe9,x\n"} {
		t.Run(name, func(t *testing.T) {
			_, err := OpenCSV(writeFile(t, dir, name+".csv", content), CSVOptions{})
			var ie *InputError
			if !errors.As(err, &ie) || !errors.Is(err, ErrFormat) {
				t.Fatalf("err %v, want an InputError wrapping ErrFormat", err)
			}
		})
	}
	t.Run("long line", func(t *testing.T) {
		long := strings.Repeat("x", MaxLineBytes+10)
		c, err := OpenCSV(writeFile(t, dir, "long.csv", "a\n"+long+"\nok\n"), CSVOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		r, err := c.Next()
		var bf *BadField
		if !errors.As(err, &bf) || r.Line != 2 || len(r.Raw) != MaxRawBytes {
			t.Fatalf("long line: line %d raw %d err %v", r.Line, len(r.Raw), err)
		}
		r, err = c.Next()
		if err != nil || r.Line != 3 || r.Fields[0] != "ok" {
			t.Fatalf("after long line: %+v %v", r, err)
		}
	})
}

func TestRowParsers(t *testing.T) {
	row := CSVRow{Fields: []string{"12.0", "1.5", "-1", "NaN", "inf", "", "x", " 7 "}}
	for _, c := range []struct {
		i       int
		want    int64
		wantErr bool
	}{{0, 12, false}, {1, 0, true}, {2, 0, true}, {3, 0, true}, {4, 0, true}, {5, 0, true}, {6, 0, true}, {7, 7, false}, {8, 0, true}} {
		got, err := row.Count(c.i, "f", 0, 100)
		if (err != nil) != c.wantErr || got != c.want {
			t.Errorf("Count(%d) = %d, %v", c.i, got, err)
		}
	}
	if _, err := row.NonNegative(2, "f"); err == nil {
		t.Error("negative accepted")
	}
	if v, err := row.Float(2, "f"); err != nil || v != -1 {
		t.Errorf("Float = %v, %v", v, err)
	}
}

func TestExpandInputs(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"cluster02.csv", "cluster01.csv", "LICENSE", "other.csv"} {
		writeFile(t, dir, n, "")
	}
	got, err := ExpandInputs([]string{dir, filepath.Join(dir, "other.csv")}, "cluster*.csv")
	want := []string{filepath.Join(dir, "cluster01.csv"), filepath.Join(dir, "cluster02.csv"), filepath.Join(dir, "other.csv")}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v %v", got, err)
	}
	if _, err := ExpandInputs([]string{dir}, "*.trace"); err == nil {
		t.Error("a directory with no matching file accepted")
	}
	if _, err := ExpandInputs([]string{filepath.Join(dir, "nope")}, "*"); err == nil {
		t.Error("a missing input accepted")
	}
}

// TestIngestCancelled checks that a cancelled ingest returns the
// cancellation and leaves no table behind.
func TestIngestCancelled(t *testing.T) {
	var b strings.Builder
	b.WriteString("job_id,submission_time,duration,num_gpu\n")
	for i := 0; i < 50000; i++ {
		b.WriteString("j,1,2,1\n")
	}
	out := t.TempDir()
	p := writeFile(t, t.TempDir(), "cluster01.csv", b.String())
	ctx, cancel := context.WithCancel(context.Background())
	_, err := ElasticFlowReader{}.Ingest(ctx, Request{Inputs: []string{p}, OutDir: out,
		Progress: func(done, total int64) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	ents, _ := os.ReadDir(out)
	for _, e := range ents {
		t.Errorf("cancelled ingest left %s", e.Name())
	}
}
