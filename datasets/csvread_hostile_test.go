package datasets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/schedlab/schedlab/internal/duckdbtest"
	"github.com/schedlab/schedlab/internal/parquettest"
)

// Hostile inputs to the text readers (issue 16): each case here failed
// before the fix it names.

// ingestTo runs source's reader on inputs into a fresh directory and
// returns the report and the directory.
func ingestTo(t *testing.T, source string, inputs ...string) (*Report, string, error) {
	t.Helper()
	r, err := Lookup(source)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	rep, err := r.Ingest(context.Background(), Request{Inputs: inputs, OutDir: out})
	return rep, out, err
}

// checkStringsReadable reads every table in dir with Arrow and with DuckDB
// (COPY … TO, which decodes every value) and fails on a string column
// holding bytes that are not UTF-8: DuckDB refuses such a table with
// "Invalid string encoding".
func checkStringsReadable(t *testing.T, dir string) {
	t.Helper()
	tables, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if len(tables) == 0 {
		t.Fatalf("no tables in %s", dir)
	}
	for _, p := range tables {
		_, tbl := parquettest.ReadTableMeta(t, p)
		for c := 0; c < int(tbl.NumCols()); c++ {
			for _, chunk := range tbl.Column(c).Data().Chunks() {
				s, ok := chunk.(*array.String)
				if !ok {
					continue
				}
				for i := 0; i < s.Len(); i++ {
					if !utf8.ValidString(s.Value(i)) {
						t.Errorf("%s: column %s row %d: invalid UTF-8 %q", filepath.Base(p), tbl.Schema().Field(c).Name, i, s.Value(i))
					}
				}
			}
		}
	}
	// One DuckDB process copies every table (a process costs about a
	// CPU second to start).
	csvDir := t.TempDir()
	var copies []string
	for _, p := range tables {
		copies = append(copies, fmt.Sprintf("COPY (SELECT * FROM read_parquet(%s)) TO %s (HEADER)", duckdbtest.Literal(p), duckdbtest.Literal(filepath.Join(csvDir, filepath.Base(p)+".csv"))))
	}
	duckdbtest.Query(t, strings.Join(copies, "; "))
	for _, p := range tables {
		csv := filepath.Join(csvDir, filepath.Base(p)+".csv")
		if b, err := os.ReadFile(csv); err != nil || !utf8.Valid(b) {
			t.Errorf("DuckDB's copy of %s: %v (valid UTF-8: %v)", filepath.Base(p), err, utf8.Valid(b))
		}
	}
}

// TestInvalidUTF8AfterFirstKiB writes, past the 4 KiB that OpenCSV's text
// check reads, a row whose user field is not UTF-8. It is quarantined with
// the field named, the escaped raw row stays readable, and every table
// reads back with Arrow and DuckDB.
func TestInvalidUTF8AfterFirstKiB(t *testing.T) {
	var b strings.Builder
	b.WriteString("job_id,submit_time,duration,num_inst,num_gpu,num_cpu,user\n")
	for i := range 300 {
		fmt.Fprintf(&b, "j%d,%d,60,1,1,4,alice\n", i, i)
	}
	if b.Len() < 4096 {
		t.Fatalf("fixture too short: %d bytes", b.Len())
	}
	b.WriteString("bad,1,60,1,1,4,b\xffob\n")
	p := writeFile(t, t.TempDir(), "jobs.csv", b.String())
	rep, out, err := ingestTo(t, SourcePAISim, p)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Accounting{Read: 301, Accepted: 300, Quarantined: 1}); rep.Total != want {
		t.Fatalf("accounting %+v, want %+v", rep.Total, want)
	}
	q, err := ReadParquet[Rejected](filepath.Join(out, QuarantineFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 1 || q[0].Field != "user" || q[0].Line != 302 || q[0].Raw != `bad,1,60,1,1,4,b\xffob` {
		t.Fatalf("quarantine %+v, want line 302, field user, raw escaped", q)
	}
	checkStringsReadable(t, out)
}

// TestGoogleInvalidUTF8Readable is the google-2011 side: it had no UTF-8
// check at all.
func TestGoogleInvalidUTF8Readable(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "%d,,%d,0,u%d,1,n,l\n", 600000000+i, i, i)
	}
	b.WriteString("600000000,,999,0,u,1,n\xc3,l\n")
	p := writeFile(t, t.TempDir(), "part-00000-of-00001.csv", b.String())
	rep, out, err := ingestTo(t, SourceGoogle2011, p)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total.Quarantined != 1 {
		t.Fatalf("accounting %+v, want one row quarantined", rep.Total)
	}
	q, _ := ReadParquet[Rejected](filepath.Join(out, QuarantineFile))
	if len(q) != 1 || q[0].Field != "job_name" || !strings.Contains(q[0].Raw, `n\xc3`) {
		t.Fatalf("quarantine %+v", q)
	}
	checkStringsReadable(t, out)
}

func TestValidText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"abc", 0, "abc"},
		{"a\xffb", 0, `a\xffb`},
		{"héllo", 2, "h"}, // not cut inside é
		{"héllo", 3, "hé"},
		{"a\xff\xfeb", 8, `a\xff`}, // an escape that would not fit is left out whole
		{"a\xff\xfeb", 9, `a\xff\xfe`},
	} {
		if got := ValidText(tc.in, tc.max); got != tc.want || !utf8.ValidString(got) || (tc.max > 0 && len(got) > tc.max) {
			t.Errorf("ValidText(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

// TestQuarantineRawCutAtRune: a long row of multi-byte text cut to
// MaxRawBytes used to end in half a rune, invalid UTF-8 in the quarantine.
func TestQuarantineRawCutAtRune(t *testing.T) {
	long := strings.Repeat("é", MaxRawBytes) // 2 bytes each
	p := writeFile(t, t.TempDir(), "c.csv", "job_id,submission_time,duration,num_gpu\nx"+long+",1,2,z\n")
	_, out, err := ingestTo(t, SourceElasticFlow, p)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := ReadParquet[Rejected](filepath.Join(out, QuarantineFile))
	if len(q) != 1 || !utf8.ValidString(q[0].Raw) || len(q[0].Raw) > MaxRawBytes {
		t.Fatalf("quarantine raw %q (%d bytes)", q[0].Raw, len(q[0].Raw))
	}
}

// TestOverlongRows: a row with more fields than the header used to be
// accepted with the extra fields dropped.
func TestOverlongRows(t *testing.T) {
	for _, tc := range []struct {
		source, name, content string
	}{
		{SourcePAISim, "jobs.csv", "job_id,submit_time,duration,num_inst,num_gpu,num_cpu\na,1,2,1,1,1\nb,1,2,1,1,1,extra\n"},
		{SourceElasticFlow, "cluster01.csv", "job_id,submission_time,duration,num_gpu\na,1,2,1\nb,1,2,1,9\n"},
		{SourceAlibabaV2023, "openb_pod_list_default.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n" +
			"p0,1000,1024,1,500,,LS,Running,0,20,10\np1,1000,1024,1,500,,LS,Running,0,20,10,surplus\n"},
	} {
		t.Run(tc.source, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), tc.name, tc.content)
			rep, out, err := ingestTo(t, tc.source, p)
			if err != nil {
				t.Fatal(err)
			}
			q, _ := ReadParquet[Rejected](filepath.Join(out, QuarantineFile))
			if rep.Total.Accepted != 1 || len(q) != 1 || q[0].Line != 3 || !strings.Contains(q[0].Reason, "more than the header") {
				t.Fatalf("accounting %+v, quarantine %+v; want line 3 quarantined for its extra field", rep.Total, q)
			}
		})
	}
}

// TestDuplicateJobIDs: a repeated job id used to be accepted twice.
func TestDuplicateJobIDs(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "again")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	gavelRow := "ResNet-18 (batch size 64)\tcmd\t-n\t1\t1000\t5.0\t1\n"
	for _, tc := range []struct {
		source string
		inputs []string
		dupAt  int64 // line of the repeat in the last input
	}{
		{SourcePAISim, []string{writeFile(t, dir, "p.csv", "job_id,submit_time,duration,num_inst,num_gpu,num_cpu\na,1,2,1,1,1\nb,1,2,1,1,1\na,3,2,1,1,1\n")}, 4},
		// The same cluster's file in two directories: ids "cluster03/x" repeat.
		{SourceElasticFlow, []string{writeFile(t, dir, "cluster03.csv", "job_id,submission_time,duration,num_gpu\nx,1,2,1\n"),
			writeFile(t, sub, "cluster03.csv", "job_id,submission_time,duration,num_gpu\ny,1,2,1\nx,5,2,1\n")}, 3},
		{SourceAlibabaV2023, []string{writeFile(t, dir, "openb_pod_list_default.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"+
			"p0,1000,1024,1,500,,LS,Running,0,20,10\np0,1000,1024,1,500,,LS,Running,0,20,10\n")}, 3},
		// Two traces of the same name: ids "<trace>/<line>" repeat.
		{SourcePhillyGavel, []string{writeFile(t, dir, "t.trace", gavelRow), writeFile(t, sub, "t.trace", gavelRow)}, 1},
	} {
		t.Run(tc.source, func(t *testing.T) {
			rep, out, err := ingestTo(t, tc.source, tc.inputs...)
			if err != nil {
				t.Fatal(err)
			}
			q, _ := ReadParquet[Rejected](filepath.Join(out, QuarantineFile))
			last := tc.inputs[len(tc.inputs)-1]
			if rep.Total.Quarantined != 1 || len(q) != 1 || q[0].File != last || q[0].Line != tc.dupAt || q[0].Field != "job_id" || !strings.Contains(q[0].Reason, "duplicate") {
				t.Fatalf("accounting %+v, quarantine %+v; want %s:%d quarantined as a duplicate", rep.Total, q, last, tc.dupAt)
			}
		})
	}
}

// TestFileNamedTwice: the same file named twice (by two paths, or as a
// file and through its directory) used to be read twice.
func TestFileNamedTwice(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "cluster01.csv", "job_id,submission_time,duration,num_gpu\na,1,2,1\n")
	link := filepath.Join(t.TempDir(), "cluster09.csv")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	for _, inputs := range [][]string{{p, p}, {p, filepath.Join(dir, ".", "cluster01.csv")}, {dir, p}, {p, link}} {
		_, out, err := ingestTo(t, SourceElasticFlow, inputs...)
		if err == nil || !strings.Contains(err.Error(), "named twice") {
			t.Errorf("inputs %v: err = %v, want a refusal", inputs, err)
		}
		if ents, _ := os.ReadDir(out); len(ents) != 0 {
			t.Errorf("inputs %v: refused ingest wrote %d files", inputs, len(ents))
		}
	}
}

// TestImplausibleFieldsQuarantined: values that parse but no trace could
// hold used to be accepted, and later gave infinite fees, NaN utilisation
// or a JCT that rounds away.
func TestImplausibleFieldsQuarantined(t *testing.T) {
	header := "job_id,submit_time,duration,num_inst,num_gpu,num_cpu\n"
	for _, tc := range []struct{ row, field string }{
		{"a,1,1e308,1,1,1", "duration_s"},
		{"a,9.2e18,60,1,1,1", "submit_s"},
		{"a,1,3.2e8,1,1,1", "duration_s"},
		{"a,1,60,2000000,2000000,1", "instances"},
		{"a,1,60,1,1000,1", "gpu"},
		{"a,1,60,1,1,1e6", "cpu"},
		{"a,1,60,1,1,1e400", "num_cpu"},
		{"a,-1,60,1,1,1", "submit_time"},
	} {
		p := writeFile(t, t.TempDir(), "p.csv", header+"ok,1,60,1,1,1\n"+tc.row+"\n")
		rep, out, err := ingestTo(t, SourcePAISim, p)
		if err != nil {
			t.Fatal(err)
		}
		q, _ := ReadParquet[Rejected](filepath.Join(out, QuarantineFile))
		if rep.Total.Accepted != 1 || len(q) != 1 || q[0].Field != tc.field {
			t.Errorf("%q: accounting %+v, quarantine %+v; want field %s quarantined", tc.row, rep.Total, q, tc.field)
		}
	}
	// A Gavel job whose steps make the duration implausible.
	p := writeFile(t, t.TempDir(), "t.trace", "ResNet-18 (batch size 64)\tcmd\t-n\t1\t9000000000000000000\t5.0\t1\n")
	rep, _, err := ingestTo(t, SourcePhillyGavel, p)
	if err != nil || rep.Total.Quarantined != 1 {
		t.Errorf("gavel: %v, %+v; want the row quarantined", err, rep)
	}
}

func TestParseFiniteOutOfRange(t *testing.T) {
	_, err := ParseFinite("1e400", "x")
	var bf *BadField
	if !errors.As(err, &bf) || !strings.Contains(bf.Reason, "out of range") {
		t.Errorf("1e400: %v, want out of range", err)
	}
	row := CSVRow{Fields: []string{"1e30"}}
	if _, err := row.Count(0, "n", 0, 10); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("count 1e30: %v, want out of range", err)
	}
}

func TestGoogleSeen(t *testing.T) {
	var s googleSeen
	k := func(ts int64, job int64, et int) googleEventKey {
		return googleEventKey{ts: ts, jobEvent: uint64(job)<<4 | uint64(et)}
	}
	// In order, with a run of equal timestamps longer than googleRunScan.
	for i := range 3 * googleRunScan {
		if s.add(k(0, int64(i), 0)) {
			t.Fatalf("event %d at 0 is new", i)
		}
	}
	if !s.add(k(0, 5, 0)) || !s.add(k(0, 2*googleRunScan, 0)) || s.add(k(0, 5, 1)) {
		t.Fatal("run of equal timestamps: repeat missed or new event taken for one")
	}
	if s.add(k(10, 1, 0)) || s.add(k(10, 2, 0)) || !s.add(k(10, 1, 0)) || s.all != nil {
		t.Fatal("in order: repeat missed")
	}
	// Out of order: from then on every event is in a map.
	if !s.add(k(0, 7, 0)) || s.all == nil || s.add(k(5, 7, 0)) || !s.add(k(10, 2, 0)) || !s.add(k(5, 7, 0)) {
		t.Fatal("out of order: repeat missed or new event taken for one")
	}
}

// TestGoogleTruncatedGzipLine: a truncated gzip part was reported at line 1
// however many lines had been read.
func TestGoogleTruncatedGzipLine(t *testing.T) {
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "%d,,%d,0,u,1,n,l\n", 600000000+i, i)
	}
	z := gzipBytes(t, b.String())
	p := filepath.Join(t.TempDir(), "part-00000-of-00001.csv.gz")
	if err := os.WriteFile(p, z[:len(z)*3/4], 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := ingestTo(t, SourceGoogle2011, p)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line < 1000 || !strings.Contains(err.Error(), fmt.Sprintf("after %d complete lines", ie.Line-1)) {
		t.Fatalf("err = %v, want the line where the data broke (thousands in)", err)
	}
}

// TestPAIRawDuplicateInstID: two job rows with different job_names and
// one inst_id (the job id) used to give two jobs of that id.
func TestPAIRawDuplicateInstID(t *testing.T) {
	dir := t.TempDir()
	jobs := writeFile(t, dir, "pai_job_table.csv", "j1,i,u,Terminated,1,2\nj2,i,u,Terminated,1,2\n")
	writeFile(t, dir, "pai_task_table.csv", "j1,worker,1,Terminated,1,2,100,1,100,V100\nj2,worker,1,Terminated,1,2,100,1,100,V100\n")
	rep, out, err := ingestTo(t, SourcePAIV2020, dir)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := ReadParquet[Rejected](filepath.Join(out, QuarantineFile))
	// The repeat, and then its task row, which no written job took.
	if rep.Total.Accepted != 2 || rep.Total.Quarantined != 2 || len(q) != 2 || q[0].File != jobs || q[0].Line != 2 || q[0].Field != "job_id" {
		t.Fatalf("accounting %+v, quarantine %+v; want %s:2 quarantined as a duplicate", rep.Total, q, jobs)
	}
}

// TestNodeBoundsAndDuplicates: a node list's repeated node, or one with
// implausible capacity, used to enter the cluster table.
func TestNodeBoundsAndDuplicates(t *testing.T) {
	dir := t.TempDir()
	nodes := writeFile(t, dir, "openb_node_list_gpu_node.csv", "sn,cpu_milli,memory_mib,gpu,model\n"+
		"n0,96000,786432,8,V100M32\nn1,96000,786432,8,V100M32\nn0,96000,786432,8,V100M32\nn2,96000,786432,1000,V100M32\nn3,1e12,786432,8,V100M32\n")
	rep, out, err := ingestTo(t, SourceAlibabaV2023, nodes)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := ReadParquet[Rejected](filepath.Join(out, QuarantineFile))
	got := map[int64]string{}
	for _, r := range q {
		got[r.Line] = r.Field
	}
	if rep.Total.Accepted != 2 || len(q) != 3 || got[4] != "node" || got[5] != "gpus" || got[6] != "cpu" {
		t.Fatalf("accounting %+v, quarantine %+v; want lines 4 (repeat), 5 (gpus) and 6 (cpu) quarantined", rep.Total, q)
	}
	cl, err := ReadParquet[ClusterNode](filepath.Join(out, ClusterFile))
	if err != nil || len(cl) != 2 {
		t.Fatalf("cluster table %+v, %v; want n0 and n1", cl, err)
	}
}
