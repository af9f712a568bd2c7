package datasets

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/schedlab/schedlab/internal/duckdbtest"
	"github.com/schedlab/schedlab/internal/parquettest"
)

func ingestGoogle(t testing.TB, workers int, req Request) *Report {
	t.Helper()
	if req.OutDir == "" {
		req.OutDir = t.TempDir()
	}
	rep, err := Google2011Reader{Workers: workers}.Ingest(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Total.Check(); err != nil {
		t.Fatal(err)
	}
	return rep
}

func readArrivals(t testing.TB, dir string) []Arrival {
	t.Helper()
	a, err := ReadParquet[Arrival](filepath.Join(dir, ArrivalsFile))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func int32p(v int32) *int32 { return &v }

// TestGoogleFixture ingests two hand-written parts, one plain and one
// gzipped, whose every row and bin is known.
func TestGoogleFixture(t *testing.T) {
	out := t.TempDir()
	rep := ingestGoogle(t, 2, Request{Inputs: []string{"testdata/google"}, OutDir: out})
	if want := (Accounting{Read: 10, Accepted: 10}); rep.Total != want {
		t.Fatalf("total %+v, want %+v", rep.Total, want)
	}
	if len(rep.PerFile) != 2 || rep.PerFile["testdata/google/part-00000-of-00002.csv"].Read != 6 {
		t.Fatalf("per file %+v", rep.PerFile)
	}
	events, err := ReadParquet[GoogleJobEvent](filepath.Join(out, JobEventsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 10 {
		t.Fatalf("%d events, want 10", len(events))
	}
	if want := (GoogleJobEvent{TimestampUS: 601000000, MissingInfo: int32p(1), JobID: 102, EventType: GoogleSubmit, SchedulingClass: 0, JobName: "nameC"}); !reflect.DeepEqual(events[3], want) {
		t.Errorf("row 4 = %+v, want %+v", events[3], want)
	}
	if events[5].MissingInfo == nil || *events[5].MissingInfo != 0 || events[0].MissingInfo != nil {
		t.Errorf("missing_info 0 and empty must differ: %v %v", events[5].MissingInfo, events[0].MissingInfo)
	}
	if events[8].TimestampUS != math.MaxInt64 || events[6].JobID != 104 {
		t.Errorf("part order or after-window timestamp lost: %+v", events[6:])
	}

	// Submits at 0 and at 2^63−1 are outside the window; the rest fall in
	// bins 0, 0, 1, 2 (one µs short of 3) and 3.
	want := []Arrival{{0, 0, 2}, {1, 1800, 1}, {2, 3600, 1}, {3, 5400, 1}}
	if got := readArrivals(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("arrivals %v, want %v", got, want)
	}
	outH := t.TempDir()
	ingestGoogle(t, 1, Request{Inputs: []string{"testdata/google"}, OutDir: outH, IntervalS: 3600})
	if got, want := readArrivals(t, outH), []Arrival{{0, 0, 3}, {1, 3600, 2}}; !reflect.DeepEqual(got, want) {
		t.Errorf("hourly arrivals %v, want %v", got, want)
	}
	// A part named twice would be read twice: the ingest is refused and
	// writes nothing.
	out2 := t.TempDir()
	_, err = (Google2011Reader{Workers: 1}).Ingest(context.Background(), Request{Inputs: []string{"testdata/google/part-00000-of-00002.csv", "testdata/google/part-00001-of-00002.csv.gz", "./testdata/google/part-00001-of-00002.csv.gz"}, OutDir: out2, IntervalS: 3600})
	if err == nil || !strings.Contains(err.Error(), "named twice") {
		t.Errorf("part named twice: %v, want a refusal", err)
	}
	if ents, _ := os.ReadDir(out2); len(ents) != 0 {
		t.Errorf("refused ingest wrote %d files", len(ents))
	}
	if q, err := ReadParquet[Rejected](filepath.Join(out, QuarantineFile)); err != nil || len(q) != 0 {
		t.Errorf("quarantine %v, %v; want empty", q, err)
	}
}

func gzipBytes(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGoogleMalformed feeds bad rows and bad files. A bad row is
// quarantined with its line and field and the rest of the file is read; a
// file that cannot be read is an *InputError wrapping ErrFormat, and the
// ingest writes nothing.
func TestGoogleMalformed(t *testing.T) {
	const good = "600000000,,1,0,u,1,n,l\n"
	const good2 = "600000001,,1,1,u,1,n,l\n"
	// 5,000 distinct rows (more than the 4 KiB a text check would read),
	// then one whose job_name is not UTF-8.
	var many strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&many, "%d,,%d,0,u,1,n,l\n", 600000000+i, i)
	}
	lateBad := many.String() + "600000000,,7,1,u,1,n\xff\xfeame,l\n"
	longLine := strings.Repeat("x", googleChunkBytes+10) + "\n"
	truncated := gzipBytes(t, strings.Repeat(good, 2000))
	truncated = truncated[:len(truncated)/2]
	badCRC := gzipBytes(t, good)
	badCRC[len(badCRC)-6] ^= 0xff

	type rejection struct {
		line  int64
		field string
	}
	cases := []struct {
		name     string
		file     string // base name, decides gzip handling
		data     []byte
		rejected []rejection // nil: all rows accepted
		read     int64
		fileErr  bool
	}{
		{name: "seven fields", file: "p.csv", data: []byte(good + "1,,2,0,u,1,n\n" + good2), read: 3, rejected: []rejection{{2, ""}}},
		{name: "nine fields", file: "p.csv", data: []byte(good + "1,,2,0,u,1,n,l,x\n"), read: 2, rejected: []rejection{{2, ""}}},
		{name: "first line nine fields", file: "p.csv", data: []byte("1,,2,0,u,1,n,l,x\n" + good), fileErr: true},
		{name: "task_events, not job_events", file: "p.csv", data: []byte("600000000,,1,0,5,0,u,1,0.1,0.2,0.3,0\n"), fileErr: true},
		{name: "csv with a header", file: "p.csv", data: []byte("time,missing,job,type,user,class,name,logical\n" + good), read: 2, rejected: []rejection{{1, "timestamp"}}},
		{name: "byte-order mark", file: "p.csv", data: []byte("\xef\xbb\xbf" + good + good2), read: 2},
		{name: "gzip byte-order mark", file: "p.csv.gz", data: gzipBytes(t, "\xef\xbb\xbf"+good), read: 1},
		{name: "invalid UTF-8 after 4 KiB", file: "p.csv", data: []byte(lateBad), read: 5001, rejected: []rejection{{5001, "job_name"}}},
		{name: "invalid UTF-8 user", file: "p.csv.gz", data: gzipBytes(t, good+"600000001,,2,0,\xc3,1,n,l\n"), read: 2, rejected: []rejection{{2, "user"}}},
		{name: "duplicate event", file: "p.csv", data: []byte(good + good2 + good + "600000000,,1,1,u,1,n,l\n"), read: 4, rejected: []rejection{{3, "job_id"}}},
		{name: "timestamp beyond plausible", file: "p.csv", data: []byte(good + "9200000000000000000,,2,4,u,1,n,l\n" + "9223372036854775807,,2,4,u,1,n,l\n"), read: 3, rejected: []rejection{{2, "timestamp"}}},
		{name: "negative job_id", file: "p.csv", data: []byte(good + "600000000,,-2,0,u,1,n,l\n"), read: 2, rejected: []rejection{{2, "job_id"}}},
		{name: "missing_info 2", file: "p.csv", data: []byte(good + "600000000,2,3,0,u,1,n,l\n"), read: 2, rejected: []rejection{{2, "missing_info"}}},
		{name: "non-numeric timestamp", file: "p.csv", data: []byte(good + "12x,,2,0,u,1,n,l\n"), read: 2, rejected: []rejection{{2, "timestamp"}}},
		{name: "empty timestamp", file: "p.csv", data: []byte(",,2,0,u,1,n,l\n"), read: 1, rejected: []rejection{{1, "timestamp"}}},
		{name: "negative timestamp", file: "p.csv", data: []byte("-5,,2,0,u,1,n,l\n"), read: 1, rejected: []rejection{{1, "timestamp"}}},
		{name: "timestamp overflow", file: "p.csv", data: []byte("9223372036854775808,,2,0,u,1,n,l\n"), read: 1, rejected: []rejection{{1, "timestamp"}}},
		{name: "submit beyond the arrivals horizon", file: "p.csv", data: []byte(good + "9223372036854775806,,2,0,u,1,n,l\n9223372036854775806,,2,4,u,1,n,l\n"), read: 3, rejected: []rejection{{2, "timestamp"}, {3, "timestamp"}}},
		{name: "bad missing_info", file: "p.csv", data: []byte("1,yes,2,0,u,1,n,l\n"), read: 1, rejected: []rejection{{1, "missing_info"}}},
		{name: "bad job_id", file: "p.csv", data: []byte("1,,,0,u,1,n,l\n"), read: 1, rejected: []rejection{{1, "job_id"}}},
		{name: "event_type out of range", file: "p.csv", data: []byte("1,,2,9,u,1,n,l\n"), read: 1, rejected: []rejection{{1, "event_type"}}},
		{name: "scheduling_class", file: "p.csv", data: []byte("1,,2,0,u,4,n,l\n1,,2,0,u,,n,l\n"), read: 2, rejected: []rejection{{1, "scheduling_class"}, {2, "scheduling_class"}}},
		{name: "empty line (skipped, as in every reader)", file: "p.csv", data: []byte(good + "\n" + good2), read: 2},
		{name: "crlf and no final newline", file: "p.csv", data: []byte("600000000,,1,0,u,1,n,l\r\n600000000,,1,1,u,1,n,l"), read: 2},
		{name: "empty file", file: "p.csv", data: nil, read: 0},
		{name: "binary garbage", file: "p.csv", data: []byte{0, 1, 2, '\n', 0xff, ','}, fileErr: true},
		{name: "binary garbage after a row", file: "p.csv", data: append([]byte(good), 0, 1, 2, '\n', 0xff, ','), read: 3, rejected: []rejection{{2, ""}, {3, ""}}},
		{name: "gzip rows", file: "p.csv.gz", data: gzipBytes(t, good+"x\n"), read: 2, rejected: []rejection{{2, ""}}},
		{name: "truncated gzip", file: "p.csv.gz", data: truncated, fileErr: true},
		{name: "gzip checksum", file: "p.csv.gz", data: badCRC, fileErr: true},
		{name: "not gzip", file: "p.csv.gz", data: []byte(good), fileErr: true},
		{name: "empty gz", file: "p.csv.gz", data: nil, fileErr: true},
		{name: "line too long", file: "p.csv", data: []byte(good + longLine), fileErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, tc.file)
			if err := os.WriteFile(in, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			rep, err := Google2011Reader{}.Ingest(context.Background(), Request{Inputs: []string{in}, OutDir: out})
			if tc.fileErr {
				var ie *InputError
				if !errors.As(err, &ie) || ie.File != in || !errors.Is(err, ErrFormat) {
					t.Fatalf("err = %v, want an *InputError for %s wrapping ErrFormat", err, in)
				}
				if ents, _ := os.ReadDir(out); len(ents) != 0 {
					t.Errorf("a failed ingest left %d files in %s", len(ents), out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := Accounting{Read: tc.read, Accepted: tc.read - int64(len(tc.rejected)), Quarantined: int64(len(tc.rejected))}
			if rep.Total != want || rep.Total.Check() != nil {
				t.Fatalf("accounting %+v, want %+v", rep.Total, want)
			}
			q, err := ReadParquet[Rejected](filepath.Join(out, QuarantineFile))
			if err != nil {
				t.Fatal(err)
			}
			if len(q) != len(tc.rejected) {
				t.Fatalf("quarantine %+v, want %d rows", q, len(tc.rejected))
			}
			for i, r := range tc.rejected {
				if q[i].File != in || q[i].Line != r.line || q[i].Field != r.field || q[i].Reason == "" || q[i].Source != SourceGoogle2011 {
					t.Errorf("rejection %d = %+v, want line %d field %q", i, q[i], r.line, r.field)
				}
			}
			ev, err := ReadParquet[GoogleJobEvent](filepath.Join(out, JobEventsFile))
			if err != nil || int64(len(ev)) != want.Accepted {
				t.Errorf("job_events has %d rows (%v), want %d", len(ev), err, want.Accepted)
			}
		})
	}
}

func TestGoogleInputs(t *testing.T) {
	if _, err := (Google2011Reader{}).Ingest(context.Background(), Request{OutDir: t.TempDir()}); err == nil {
		t.Error("no inputs: want an error")
	}
	if _, err := (Google2011Reader{}).Ingest(context.Background(), Request{Inputs: []string{t.TempDir()}, OutDir: t.TempDir()}); err == nil {
		t.Error("empty directory: want an error")
	}
	_, err := Google2011Reader{}.Ingest(context.Background(), Request{Inputs: []string{"testdata/google/nope.csv"}, OutDir: t.TempDir()})
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "nope.csv") {
		t.Errorf("missing file: err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Google2011Reader{}).Ingest(ctx, Request{Inputs: []string{"testdata/google"}, OutDir: t.TempDir()}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

// googleParts returns the first n parts of the real trace (all when n ≤ 0),
// skipping the test when the data is absent.
func googleParts(t testing.TB, n int) []string {
	t.Helper()
	dir := sharedData(t, "google-2011/job_events")
	parts, err := filepath.Glob(filepath.Join(dir, "part-*.csv.gz"))
	if err != nil || len(parts) == 0 {
		t.Skipf("no parts in %s", dir)
	}
	if n > 0 && n < len(parts) {
		parts = parts[:n]
	}
	return parts
}

// referenceGoogle decodes parts the plain way (compress/gzip, whole lines,
// strings.Split, strconv), independently of the reader's byte-level
// decoder, and bins in-window SUBMITs by binS seconds.
func referenceGoogle(t testing.TB, parts []string, binS int64) (rows []GoogleJobEvent, bins map[int64]int64) {
	t.Helper()
	bins = map[int64]int64{}
	for _, p := range parts {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(zr)
		for sc.Scan() {
			fs := strings.Split(sc.Text(), ",")
			if len(fs) != 8 {
				t.Fatalf("%s: %d fields", p, len(fs))
			}
			num := func(s string) int64 {
				v, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				return v
			}
			ev := GoogleJobEvent{TimestampUS: num(fs[0]), JobID: num(fs[2]), EventType: int32(num(fs[3])), User: fs[4],
				SchedulingClass: int32(num(fs[5])), JobName: fs[6], LogicalJobName: fs[7]}
			if fs[1] != "" {
				ev.MissingInfo = int32p(int32(num(fs[1])))
			}
			rows = append(rows, ev)
			if ev.EventType == 0 && ev.TimestampUS >= 600e6 && ev.TimestampUS != math.MaxInt64 {
				bins[(ev.TimestampUS-600e6)/(binS*1e6)]++
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return rows, bins
}

// TestGoogleRealSubset checks the first 20 parts of the real trace (8
// under the race detector; make test-norace checks 20) row for row
// against the reference decoder, re-reads job_events with Arrow's pqarrow
// reader, and checks that 1 or 4 workers and GOMAXPROCS 1 or more give
// byte-identical files.
func TestGoogleRealSubset(t *testing.T) {
	n := 20
	if raceEnabled {
		n = 8 // still two parts a worker, and part 0, larger than a chunk
	}
	parts := googleParts(t, n)
	want, wantBins := referenceGoogle(t, parts, 1800)

	out := t.TempDir()
	rep := ingestGoogle(t, 4, Request{Inputs: parts, OutDir: out})
	if rep.Total != (Accounting{Read: int64(len(want)), Accepted: int64(len(want))}) {
		t.Fatalf("accounting %+v, want %d rows all accepted", rep.Total, len(want))
	}
	got, err := ReadParquet[GoogleJobEvent](filepath.Join(out, JobEventsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("row %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	arr := readArrivals(t, out)
	var sum int64
	for _, a := range arr {
		if a.Jobs != wantBins[a.Interval] || a.StartS != float64(a.Interval)*1800 {
			t.Errorf("bin %+v, want %d jobs", a, wantBins[a.Interval])
		}
		sum += a.Jobs
	}
	var wantSum int64
	for _, n := range wantBins {
		wantSum += n
	}
	if sum != wantSum || len(wantBins) == 0 {
		t.Errorf("arrivals sum to %d, want %d", sum, wantSum)
	}

	checkGoogleArrow(t, filepath.Join(out, JobEventsFile), want)

	prev := runtime.GOMAXPROCS(1)
	out1 := t.TempDir()
	ingestGoogle(t, 1, Request{Inputs: parts, OutDir: out1})
	runtime.GOMAXPROCS(prev)
	for _, name := range []string{JobEventsFile, ArrivalsFile, QuarantineFile} {
		a, err1 := os.ReadFile(filepath.Join(out, name))
		b, err2 := os.ReadFile(filepath.Join(out1, name))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between 4 workers and 1 worker at GOMAXPROCS 1 (%v, %v)", name, err1, err2)
		}
	}
}

// checkGoogleArrow reads job_events with Arrow's pqarrow reader, an
// independent Parquet implementation: the columns, their nullability, the
// row count and the nulls of missing_info must be what we meant to write.
func checkGoogleArrow(t *testing.T, path string, want []GoogleJobEvent) {
	t.Helper()
	kv, tbl := parquettest.ReadTableMeta(t, path)
	if src := kv.FindValue(MetaSource); src == nil || *src != SourceGoogle2011 {
		t.Errorf("metadata source %v", src)
	}
	wantCols := []struct {
		name     string
		nullable bool
	}{{"timestamp_us", false}, {"missing_info", true}, {"job_id", false}, {"event_type", false}, {"user", true}, {"scheduling_class", false}, {"job_name", true}, {"logical_job_name", true}}
	sch := tbl.Schema()
	if sch.NumFields() != len(wantCols) {
		t.Fatalf("arrow schema %v", sch)
	}
	for i, c := range wantCols {
		if f := sch.Field(i); f.Name != c.name || f.Nullable != c.nullable {
			t.Errorf("column %d = %s nullable %v, want %s nullable %v", i, f.Name, f.Nullable, c.name, c.nullable)
		}
	}
	if tbl.NumRows() != int64(len(want)) {
		t.Fatalf("arrow reads %d rows, want %d", tbl.NumRows(), len(want))
	}
	var wantNulls, nulls, firstTS int
	for _, w := range want {
		if w.MissingInfo == nil {
			wantNulls++
		}
	}
	for _, ch := range tbl.Column(1).Data().Chunks() {
		nulls += ch.NullN()
	}
	if nulls != wantNulls {
		t.Errorf("missing_info has %d nulls, want %d", nulls, wantNulls)
	}
	ts := tbl.Column(0).Data().Chunk(0).(*array.Int64)
	if ts.Value(firstTS) != want[firstTS].TimestampUS {
		t.Errorf("first timestamp %d, want %d", ts.Value(firstTS), want[firstTS].TimestampUS)
	}
}

// TestGoogleRealFull ingests all 500 parts and checks the counts the data
// README states: 2,012,242 rows, 1,392 half-hour bins holding 668,089
// in-window SUBMITs, 165 to 1,607 a bin. DuckDB recounts our Parquet.
func TestGoogleRealFull(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("full Google trace skipped in -short mode and under the race detector (TestGoogleRealSubset covers 20 parts without -short, 8 under the detector)")
	}
	parts := googleParts(t, 0)
	if len(parts) != 500 {
		t.Skipf("%d parts, want all 500", len(parts))
	}
	out := t.TempDir()
	rep := ingestGoogle(t, 0, Request{Inputs: parts, OutDir: out})
	if rep.Total != (Accounting{Read: 2_012_242, Accepted: 2_012_242}) {
		t.Fatalf("accounting %+v", rep.Total)
	}
	arr := readArrivals(t, out)
	var sum, lo, hi int64 = 0, math.MaxInt64, 0
	for _, a := range arr {
		sum += a.Jobs
		lo, hi = min(lo, a.Jobs), max(hi, a.Jobs)
	}
	if len(arr) != 1392 || sum != 668_089 || lo != 165 || hi != 1607 {
		t.Errorf("arrivals: %d bins, %d submissions, %d to %d a bin; want 1392, 668089, 165 to 1607", len(arr), sum, lo, hi)
	}
	r := duckdbtest.Query(t, fmt.Sprintf(
		"SELECT (SELECT count(*) FROM %s), (SELECT count(*) FROM %s WHERE event_type = 0), (SELECT sum(jobs) FROM %s), (SELECT count(*) FROM %s WHERE missing_info IS NOT NULL)",
		duckdbtest.Literal(filepath.Join(out, JobEventsFile)), duckdbtest.Literal(filepath.Join(out, JobEventsFile)),
		duckdbtest.Literal(filepath.Join(out, ArrivalsFile)), duckdbtest.Literal(filepath.Join(out, JobEventsFile))))
	got := []float64{duckdbtest.Float(t, r.Rows[0][0]), duckdbtest.Float(t, r.Rows[0][1]), duckdbtest.Float(t, r.Rows[0][2]), duckdbtest.Float(t, r.Rows[0][3])}
	if want := []float64{2_012_242, 672_075, 668_089, 19}; !reflect.DeepEqual(got, want) {
		t.Errorf("duckdb counts (rows, SUBMITs, arrivals, missing_info set) = %v, want %v", got, want)
	}

	// DuckDB's own CSV reader over the raw parts and our Parquet must agree
	// on every column's aggregates.
	const agg = "SELECT count(*), sum(timestamp_us)::VARCHAR, count(missing_info), sum(missing_info), sum(job_id)::VARCHAR, sum(event_type), " +
		"count(user), count(DISTINCT user), sum(scheduling_class), count(DISTINCT job_name), count(DISTINCT logical_job_name) FROM %s"
	csv := fmt.Sprintf("read_csv(%s, header=false, columns={'timestamp_us': 'BIGINT', 'missing_info': 'INTEGER', 'job_id': 'BIGINT', 'event_type': 'INTEGER', "+
		"'user': 'VARCHAR', 'scheduling_class': 'INTEGER', 'job_name': 'VARCHAR', 'logical_job_name': 'VARCHAR'})",
		duckdbtest.Literal(filepath.Join(filepath.Dir(parts[0]), "part-*.csv.gz")))
	fromCSV := duckdbtest.Query(t, fmt.Sprintf(agg, csv))
	fromParquet := duckdbtest.Query(t, fmt.Sprintf(agg, duckdbtest.Literal(filepath.Join(out, JobEventsFile))))
	if !reflect.DeepEqual(fromCSV.Rows, fromParquet.Rows) {
		t.Errorf("aggregates differ:\n     csv %v\n parquet %v", fromCSV.Rows, fromParquet.Rows)
	}
}

// BenchmarkGoogle2011Ingest ingests the whole real trace (500 parts) into
// job_events and arrivals Parquet; it is skipped when the data is absent.
func BenchmarkGoogle2011Ingest(b *testing.B) {
	parts := googleParts(b, 0)
	var size int64
	for _, p := range parts {
		st, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		size += st.Size()
	}
	b.SetBytes(size)
	out := b.TempDir()
	for b.Loop() {
		if _, err := (Google2011Reader{}).Ingest(context.Background(), Request{Inputs: parts, OutDir: out}); err != nil {
			b.Fatal(err)
		}
	}
}

// Blank lines of a Google part are skipped, not quarantined: a part of
// one row and 100 000 empty (or blank) lines is one row read, none
// quarantined (once, a 43 KB .gz gave 10 M quarantine rows).
func TestGoogleSkipsBlankLines(t *testing.T) {
	body := "600000000,,1,0,u,1,n,l\n" + strings.Repeat("\n", 50_000) + strings.Repeat(" \t\r\n", 50_000)
	in := filepath.Join(t.TempDir(), "part-00000-of-00500.csv.gz")
	if err := os.WriteFile(in, gzipBytes(t, body), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := (Google2011Reader{}).Ingest(context.Background(), Request{Inputs: []string{in}, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total.Read != 1 || rep.Total.Quarantined != 0 {
		t.Errorf("accounting %+v, want 1 row read, none quarantined", rep.Total)
	}
}
