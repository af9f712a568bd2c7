package history_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/history"
	"github.com/schedlab/schedlab/internal/duckdbtest"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/rundiff"
)

// fakeRun is what a run directory of the tests holds.
type fakeRun struct {
	revision string
	modified bool
	date     string // the manifest's; "" for a manifest from before dates
	preset   string
	hash     string // config hash
	status   string // "" means ok
	cells    []evaluation.MetricsRow
	// replicates, when set, gives eval/metrics.parquet a replicate column
	// with these values, one per cell.
	replicates []int32
}

// cells makes n cells of an experiment whose values depend on base.
func cells(exp string, n int, base float64) []evaluation.MetricsRow {
	var out []evaluation.MetricsRow
	for i := range n {
		out = append(out, evaluation.MetricsRow{Experiment: exp, Cluster: fmt.Sprintf("c%d", i%2), Workload: "w",
			Scheduler: []string{"fifo-firstfit", "das"}[i/2%2], Seed: int32(i / 4), Jobs: int32(100 + i), Pruned: int32(i % 3),
			MeanJCTS: base + float64(i)*1.25, P50JCTS: base/2 + float64(i), P95JCTS: base * 3, MeanFeeUSD: base / 1000,
			MeanQueueS: float64(i) / 3, MeanSlowdown: 1 + float64(i)/7, MakespanS: base * 10, GPUUtil: 0.5 + float64(i)/100,
			Decisions: int32(10 * i)})
	}
	return out
}

// write makes dir a run directory: eval/metrics.parquet, written by the
// writer the evaluation package uses, and a manifest listing it.
func (f fakeRun) write(t *testing.T, dir string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(evaluation.MetricsFile))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	meta := datasets.FileMeta{Source: "eval", ConfigHash: f.hash}
	var err error
	if f.replicates != nil {
		rows := slices.Clone(f.cells)
		for i := range rows {
			rows[i].Replicate = f.replicates[i]
		}
		err = datasets.WriteParquet(p, meta, rows)
	} else {
		err = datasets.WriteParquet(p, meta, legacyRows(f.cells))
	}
	if err != nil {
		t.Fatal(err)
	}
	f.manifest(t, dir)
}

// legacyRow is a metrics row as runs wrote it before the replicate column
// (train.seeds): a run without replicates is written in that layout, so
// that history's reading of it as replicate 0 stays tested.
type legacyRow struct {
	Experiment   string  `parquet:"experiment"`
	Cluster      string  `parquet:"cluster"`
	Workload     string  `parquet:"workload"`
	Scheduler    string  `parquet:"scheduler"`
	Seed         int32   `parquet:"seed"`
	Jobs         int32   `parquet:"jobs"`
	Pruned       int32   `parquet:"pruned"`
	MeanJCTS     float64 `parquet:"mean_jct_s"`
	P50JCTS      float64 `parquet:"p50_jct_s"`
	P95JCTS      float64 `parquet:"p95_jct_s"`
	MeanFeeUSD   float64 `parquet:"mean_fee_usd"`
	MeanQueueS   float64 `parquet:"mean_queue_s"`
	MeanSlowdown float64 `parquet:"mean_slowdown"`
	MakespanS    float64 `parquet:"makespan_s"`
	GPUUtil      float64 `parquet:"gpu_util"`
	Decisions    int32   `parquet:"decisions"`
}

func legacyRows(cells []evaluation.MetricsRow) []legacyRow {
	out := make([]legacyRow, len(cells))
	for i, c := range cells {
		out[i] = legacyRow{c.Experiment, c.Cluster, c.Workload, c.Scheduler, c.Seed, c.Jobs, c.Pruned, c.MeanJCTS, c.P50JCTS,
			c.P95JCTS, c.MeanFeeUSD, c.MeanQueueS, c.MeanSlowdown, c.MakespanS, c.GPUUtil, c.Decisions}
	}
	return out
}

// manifest writes dir/manifest.json listing eval/metrics.parquet with the
// hash of the file there.
func (f fakeRun) manifest(t *testing.T, dir string) {
	t.Helper()
	sum, n, err := pipeline.HashFile(filepath.Join(dir, filepath.FromSlash(evaluation.MetricsFile)))
	if err != nil {
		t.Fatal(err)
	}
	status := cmpOr(f.status, "ok")
	m := map[string]any{
		"status": status, "seed": 1, "config_hash": f.hash, "wall_s": 1.5,
		"config":   map[string]any{"preset": f.preset, "seed": 1},
		"versions": pipeline.Versions{Module: "(devel)", Go: "go1.26", VCSRevision: f.revision, VCSModified: f.modified},
		"stages": []pipeline.StageManifest{{Name: "eval-collect", Version: "1", Status: "ran",
			Outputs: []pipeline.Artifact{{Name: evaluation.MetricsFile, SHA256: sum, Bytes: n}}}},
	}
	if f.date != "" {
		m["date"] = f.date
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, pipeline.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// The runs of the tests: a and c are one revision (dirty, with a '/' and
// a '=' that the partition path must escape) on two dates, b another
// revision with replicates; d is another preset.
var (
	runA = fakeRun{revision: "v1.2/x=y", modified: true, date: "2026-11-20T23:00:00Z", preset: "quick", hash: "aaaa1111",
		cells: append(cells("das-table1", 8, 600), cells("marl-servers", 4, 90)...)}
	runB = fakeRun{revision: "0123abc", date: "2026-11-21T23:00:00Z", preset: "quick", hash: "bbbb2222",
		cells: cells("das-table1", 8, 650), replicates: []int32{0, 1, 2, 0, 1, 2, 0, 1}}
	runC = fakeRun{revision: "v1.2/x=y", modified: true, date: "2026-11-22T23:00:00Z", preset: "quick", hash: "aaaa1111",
		cells: cells("das-table1", 8, 610)}
	runD = fakeRun{revision: "0123abc", date: "2026-11-21T23:30:00Z", preset: "nightly", hash: "dddd4444",
		cells: cells("das-table1", 4, 700)}
)

// expected is what the history must hold for runs, sorted like the
// dataset's query below.
func expected(runs ...fakeRun) []history.Record {
	var out []history.Record
	for _, f := range runs {
		d, _ := time.Parse(time.RFC3339, f.date)
		rev := f.revision
		if f.modified {
			rev += "-dirty"
		}
		for i, c := range f.cells {
			var rep int32
			if f.replicates != nil {
				rep = f.replicates[i]
			}
			out = append(out, history.Record{Preset: f.preset, Revision: rev, Row: history.Row{
				Date: d, ConfigHash: f.hash, Experiment: c.Experiment, Cluster: c.Cluster, Workload: c.Workload,
				Scheduler: c.Scheduler, Seed: c.Seed, Replicate: rep, Jobs: c.Jobs, Pruned: c.Pruned,
				MeanJCTS: c.MeanJCTS, P50JCTS: c.P50JCTS, P95JCTS: c.P95JCTS, MeanFeeUSD: c.MeanFeeUSD,
				MeanQueueS: c.MeanQueueS, MeanSlowdown: c.MeanSlowdown, MakespanS: c.MakespanS, GPUUtil: c.GPUUtil,
				Decisions: c.Decisions}})
		}
	}
	slices.SortFunc(out, compareRecords)
	return out
}

func compareRecords(a, b history.Record) int {
	return strings.Compare(recordKey(a), recordKey(b))
}

func recordKey(r history.Record) string {
	return fmt.Sprintf("%s|%s|%s|%s|%s|%s|%s|%s|%08d|%08d", r.Preset, r.Revision, r.Date.UTC().Format(time.RFC3339), r.ConfigHash,
		r.Experiment, r.Cluster, r.Workload, r.Scheduler, r.Seed, r.Replicate)
}

// addAll makes each run's directory and adds it to the history in dir.
func addAll(t *testing.T, dir string, runs ...fakeRun) []history.Added {
	t.Helper()
	var out []history.Added
	for _, f := range runs {
		rd := t.TempDir()
		f.write(t, rd)
		a, err := history.Add(context.Background(), rd, dir, history.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

// TestAddRead: the dataset holds every run's cells with the run's key,
// runs of one revision on two dates side by side in one file.
func TestAddRead(t *testing.T) {
	dir := t.TempDir()
	added := addAll(t, dir, runA, runB, runC, runD)
	wantFile := filepath.Join(dir, "preset=quick", "revision=v1.2%2Fx%3Dy-dirty", "metrics.parquet")
	if added[0].File != wantFile || added[2].File != wantFile {
		t.Errorf("files %s, %s; want both %s", added[0].File, added[2].File, wantFile)
	}
	for i, a := range added {
		if a.Replaced != 0 || a.Unchanged {
			t.Errorf("add %d: %+v, want a new run", i, a)
		}
	}
	got, err := history.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, compareRecords)
	want := expected(runA, runB, runC, runD)
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if g, w := fmt.Sprintf("%+v", got[i]), fmt.Sprintf("%+v", want[i]); g != w || !got[i].Date.Equal(want[i].Date) {
			t.Errorf("row %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

// TestAddTwice: adding a run again replaces its rows with the same rows,
// says so, and leaves the file's bytes; the dataset's bytes do not depend
// on the order the runs were added in.
func TestAddTwice(t *testing.T) {
	dir := t.TempDir()
	addAll(t, dir, runA, runC)
	file := filepath.Join(dir, "preset=quick", "revision=v1.2%2Fx%3Dy-dirty", "metrics.parquet")
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	again := addAll(t, dir, runA)[0]
	if again.Replaced != len(runA.cells) || again.Rows != len(runA.cells) || !again.Unchanged {
		t.Errorf("second add of run a: %+v, want %d rows replaced, unchanged", again, len(runA.cells))
	}
	after, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("a second add of the same run changed the file")
	}
	other := t.TempDir()
	addAll(t, other, runC, runA, runC)
	reordered, err := os.ReadFile(filepath.Join(other, "preset=quick", "revision=v1.2%2Fx%3Dy-dirty", "metrics.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, reordered) {
		t.Error("adding c, a, c wrote other bytes than a, c")
	}
	// A run re-done with other results (the same key) replaces its rows.
	changed := runA
	changed.cells = cells("das-table1", 2, 1)
	res := addAll(t, dir, changed)[0]
	if res.Replaced != len(runA.cells) || res.Unchanged {
		t.Errorf("changed run: %+v, want %d rows replaced", res, len(runA.cells))
	}
	got, err := history.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(runC.cells) + 2; len(got) != n {
		t.Errorf("%d rows after replacing a's, want %d", len(got), n)
	}
}

// TestDuckDB: DuckDB reads the dataset as one table, with the partition
// values (unescaped) as columns, and every value as written.
func TestDuckDB(t *testing.T) {
	dir := t.TempDir()
	addAll(t, dir, runA, runB, runC, runD)
	out := filepath.Join(t.TempDir(), "all.json")
	// hive_types_autocast=false: a revision of digits stays text. date
	// leaves as microseconds since the epoch, which do not depend on the
	// session's time zone.
	duckdbtest.Query(t, fmt.Sprintf(`COPY (SELECT *, epoch_us(date) AS date_us, typeof(date) AS date_type
		FROM read_parquet(%s, hive_partitioning=true, hive_types_autocast=false)) TO %s (FORMAT json)`,
		duckdbtest.Literal(filepath.Join(dir, "*", "*", "metrics.parquet")), duckdbtest.Literal(out)))
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []history.Record
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var v struct {
			history.Record
			Date     json.RawMessage `json:"date"`
			DateUS   int64           `json:"date_us"`
			DateType string          `json:"date_type"`
		}
		dec := json.NewDecoder(strings.NewReader(line))
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, line)
		}
		if v.DateType != "TIMESTAMP WITH TIME ZONE" {
			t.Errorf("line %d: date is %s, want TIMESTAMP WITH TIME ZONE", i+1, v.DateType)
		}
		var cols map[string]any
		if err := json.Unmarshal([]byte(line), &cols); err != nil {
			t.Fatal(err)
		}
		if len(cols) != 23 { // 19 columns of Row, 2 partition keys, 2 added here
			t.Errorf("line %d: %d columns, want 23: %s", i+1, len(cols), line)
		}
		v.Record.Date = time.UnixMicro(v.DateUS).UTC()
		got = append(got, v.Record)
	}
	slices.SortFunc(got, compareRecords)
	want := expected(runA, runB, runC, runD)
	if len(got) != len(want) {
		t.Fatalf("DuckDB reads %d rows, want %d", len(got), len(want))
	}
	// Exact comparison: DuckDB writes doubles in their shortest
	// round-trip form and Go parses them back to the same float64.
	for i := range want {
		if g, w := fmt.Sprintf("%+v", got[i]), fmt.Sprintf("%+v", want[i]); g != w {
			t.Errorf("row %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

// TestAddErrors: what cannot be added is an error naming the file.
func TestAddErrors(t *testing.T) {
	hist := t.TempDir()
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		opt   history.Options
		want  []string // substrings of the error; "{dir}" is the run directory
	}{
		{"no manifest", func(t *testing.T, dir string) {}, history.Options{}, []string{"{dir}/manifest.json", "not a schedlab run directory"}},
		{"no metrics", func(t *testing.T, dir string) {
			runB.write(t, dir)
			os.Remove(filepath.Join(dir, "eval", "metrics.parquet"))
		}, history.Options{}, []string{"{dir}/eval/metrics.parquet", "no such file"}},
		{"metrics changed", func(t *testing.T, dir string) {
			runB.write(t, dir)
			datasets.WriteParquet(filepath.Join(dir, "eval", "metrics.parquet"), datasets.FileMeta{}, cells("x", 1, 1))
		}, history.Options{}, []string{"{dir}/eval/metrics.parquet", "changed after its run"}},
		{"wrong schema", func(t *testing.T, dir string) {
			type notMetrics struct {
				Experiment string  `parquet:"experiment"`
				MeanJCT    float64 `parquet:"mean_jct"`
			}
			os.MkdirAll(filepath.Join(dir, "eval"), 0o755)
			datasets.WriteParquet(filepath.Join(dir, "eval", "metrics.parquet"), datasets.FileMeta{}, []notMetrics{{"x", 1}})
			runB.manifest(t, dir)
		}, history.Options{}, []string{"{dir}/eval/metrics.parquet", "cluster", "no such column"}},
		{"not Parquet", func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "eval"), 0o755)
			os.WriteFile(filepath.Join(dir, "eval", "metrics.parquet"), []byte("experiment,cluster\n"), 0o644)
			runB.manifest(t, dir)
		}, history.Options{}, []string{"{dir}/eval/metrics.parquet"}},
		{"failed run", func(t *testing.T, dir string) {
			f := runB
			f.status = "failed"
			f.write(t, dir)
		}, history.Options{}, []string{"{dir}/manifest.json", `status is "failed"`}},
		{"no date", func(t *testing.T, dir string) {
			f := runB
			f.date = ""
			f.write(t, dir)
		}, history.Options{}, []string{"{dir}/manifest.json", "no date"}},
		{"date given for a dated run", func(t *testing.T, dir string) { runB.write(t, dir) },
			history.Options{Date: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)}, []string{"{dir}/manifest.json", "dated 2026-11-21T23:00:00Z"}},
		{"no preset", func(t *testing.T, dir string) {
			f := runB
			f.preset = ""
			f.write(t, dir)
		}, history.Options{}, []string{"{dir}/manifest.json", "no preset"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			_, err := history.Add(context.Background(), dir, hist, tc.opt)
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
			for _, w := range tc.want {
				if w = strings.ReplaceAll(w, "{dir}", dir); !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	if tests[0].name == "no manifest" {
		_, err := history.Add(context.Background(), t.TempDir(), hist, history.Options{})
		if !errors.Is(err, rundiff.ErrNotRun) {
			t.Errorf("no manifest: %v, want rundiff.ErrNotRun", err)
		}
	}
	if got, err := history.Read(hist); err != nil || len(got) != 0 {
		t.Errorf("after failed adds the history holds %d rows (%v), want none", len(got), err)
	}
}

// TestAddUndated: a run from before manifests were dated enters with the
// date given for it.
func TestAddUndated(t *testing.T) {
	f := runB
	f.date = ""
	rd, hist := t.TempDir(), t.TempDir()
	f.write(t, rd)
	d := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	a, err := history.Add(context.Background(), rd, hist, history.Options{Date: d})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Key.Date.Equal(d) || a.Rows != len(f.cells) {
		t.Errorf("added %+v, want %d rows dated %v", a, len(f.cells), d)
	}
}

// TestEscapeValue: partition values escape as Hive escapes them and come
// back unchanged.
func TestEscapeValue(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{"abc123-dirty", "abc123-dirty"},
		{"v1.2/x=y", "v1.2%2Fx%3Dy"},
		{"50%: a?b#c", "50%25%3A%20a%3Fb%23c"},
		{"tab\there", "tab%09here"},
		{"ünï", "ünï"},
	} {
		if got := history.EscapeValue(tc.in); got != tc.out {
			t.Errorf("EscapeValue(%q) = %q, want %q", tc.in, got, tc.out)
		}
		if back, err := history.UnescapeValue(tc.out); err != nil || back != tc.in {
			t.Errorf("UnescapeValue(%q) = %q, %v; want %q", tc.out, back, err, tc.in)
		}
	}
	for _, bad := range []string{"a%", "a%2", "a%zz", "%+1"} {
		if _, err := history.UnescapeValue(bad); err == nil {
			t.Errorf("UnescapeValue(%q): no error", bad)
		}
	}
}

// TestArrow: Arrow's reader, independent of the writer, reads a
// partition file with every column of Row and the run's date as a UTC
// timestamp.
func TestArrow(t *testing.T) {
	dir := t.TempDir()
	added := addAll(t, dir, runA, runC)
	f, err := os.Open(added[0].File)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	// Not a checked allocator: Arrow v15's delta-bit-packing decoder
	// keeps 64-byte scratch buffers it never releases (as in datasets'
	// Arrow tests), and this test allocates no Arrow memory of its own.
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if n := len(runA.cells) + len(runC.cells); tbl.NumRows() != int64(n) {
		t.Errorf("Arrow reads %d rows, want %d", tbl.NumRows(), n)
	}
	var names []string
	for _, fd := range tbl.Schema().Fields() {
		names = append(names, fd.Name)
	}
	want := "date config_hash experiment cluster workload scheduler seed replicate jobs pruned mean_jct_s p50_jct_s p95_jct_s mean_fee_usd mean_queue_s mean_slowdown makespan_s gpu_util decisions"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("columns %s\nwant    %s", got, want)
	}
	if ts, ok := tbl.Schema().Field(0).Type.(*arrow.TimestampType); !ok || ts.Unit != arrow.Microsecond || ts.TimeZone != "UTC" {
		t.Errorf("date is %v, want timestamp[us, tz=UTC]", tbl.Schema().Field(0).Type)
	}
	col := tbl.Column(0).Data().Chunk(0).(*array.Timestamp)
	if got := col.Value(0).ToTime(arrow.Microsecond); !got.Equal(added[0].Key.Date) {
		t.Errorf("first date %v, want run a's %v", got, added[0].Key.Date)
	}
}

// TestPlot: one SVG per preset and experiment with a panel per headline
// metric that is not all zero, and an index listing them and the runs.
func TestPlot(t *testing.T) {
	dir := t.TempDir()
	noFee := runB
	noFee.cells = cells("marl-servers", 4, 80)
	for i := range noFee.cells {
		noFee.cells[i].MeanFeeUSD = 0
	}
	noFee.replicates = nil
	addAll(t, dir, runA, runB, runC, runD)
	out := filepath.Join(t.TempDir(), "plots")
	files, err := history.Plot(context.Background(), dir, out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if got, want := strings.Join(names, " "), "nightly-das-table1.svg quick-das-table1.svg quick-marl-servers.svg index.md"; got != want {
		t.Errorf("wrote %s, want %s", got, want)
	}
	svg, err := os.ReadFile(filepath.Join(out, "quick-das-table1.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"quick, das-table1, c0: mean JCT (min) over runs", "quick, das-table1, c1: mean fee (USD) over runs", "v1.2/x=y-dir", "2026-11-22 23:00", "cfg "} {
		if !bytes.Contains(svg, []byte(w)) {
			t.Errorf("quick-das-table1.svg does not show %q", w)
		}
	}
	index, err := os.ReadFile(filepath.Join(out, history.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"## Preset quick", "| 3 | 2026-11-22T23:00:00Z | `v1.2/x=y-dirty` | aaaa1111 | 8 |", "![quick, marl-servers](quick-marl-servers.svg)"} {
		if !bytes.Contains(index, []byte(w)) {
			t.Errorf("index does not say %q:\n%s", w, index)
		}
	}
	// A run whose fees are all zero: its experiment's plot has no fee panel.
	other := t.TempDir()
	addAll(t, other, noFee)
	if _, err := history.Plot(context.Background(), other, out); err != nil {
		t.Fatal(err)
	}
	svg, err = os.ReadFile(filepath.Join(out, "quick-marl-servers.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(svg, []byte("mean fee")) || !bytes.Contains(svg, []byte("mean JCT")) {
		t.Error("an all-zero fee was drawn, or the JCT was not")
	}
	if _, err := history.Plot(context.Background(), t.TempDir(), out); err == nil {
		t.Error("an empty history plotted")
	}
}
