package datasets

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/duckdbtest"
	"github.com/schedlab/schedlab/internal/shareddata"
	"github.com/schedlab/schedlab/pipeline"
)

// googlePart is the text of a synthetic job_events part: rows events
// from timestamp start on, one SUBMIT in three, every fifth with
// missing_info set and every seventh with empty names.
func googlePart(start int64, rows int, tag string) string {
	var b strings.Builder
	for i := range rows {
		ts := start + int64(i)*997_000_003
		mi := ""
		if i%5 == 0 {
			mi = strconv.Itoa(i % 2)
		}
		name := fmt.Sprintf("name%s%d", tag, i%4)
		if i%7 == 0 {
			name = ""
		}
		fmt.Fprintf(&b, "%d,%s,%d,%d,user%s%d,%d,%s,log%d\n", ts, mi, 1000+start/1_000_000+int64(i), i%3*4, tag, i%3, i%4, name, i%2)
	}
	return b.String()
}

// writeGooglePart writes text as src/name gzipped when name ends in .gz.
func writeGooglePart(t *testing.T, src, name, text string) {
	t.Helper()
	data := []byte(text)
	if strings.HasSuffix(name, ".gz") {
		data = gzipBytes(t, text)
	}
	if err := os.WriteFile(filepath.Join(src, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// dirFiles is every file under dir but its lock, by relative path.
func dirFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == pipeline.LockFile {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ingestDataset(t *testing.T, r PerFileReader, src, out string) *DatasetReport {
	t.Helper()
	rep, err := IngestDataset(context.Background(), r, Request{Inputs: []string{src}, OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// sameAsFull checks that the dataset in dir is, file for file and byte for
// byte (_dataset.json included), what a full ingest of src into an empty
// directory writes.
func sameAsFull(t *testing.T, r PerFileReader, src, dir string) {
	t.Helper()
	full := t.TempDir()
	rep := ingestDataset(t, r, src, full)
	if len(rep.Kept) != 0 || len(rep.Removed) != 0 {
		t.Fatalf("full ingest kept %v, removed %v", rep.Kept, rep.Removed)
	}
	got, want := dirFiles(t, dir), dirFiles(t, full)
	var names []string
	for n := range want {
		names = append(names, n)
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			t.Errorf("%s: not written by a full ingest", n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if !bytes.Equal(got[n], want[n]) {
			t.Errorf("%s differs from a full ingest's", n)
		}
	}
}

// TestDatasetGoogleIncremental adds, changes (same size) and removes parts
// of a multi-file Google trace and checks after each refresh that only the
// parts concerned were read and that the dataset is what a full ingest
// writes, byte for byte, and, row for row, what a single-file ingest of
// the same parts accepts, quarantines and bins. Part 2 repeats an event of
// part 1: a duplicate across partitions.
func TestDatasetGoogleIncremental(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	const day = 86_400_000_000
	p1 := googlePart(GoogleWindowStartUS+day, 40, "b")
	first := strings.SplitN(p1, "\n", 2)[0]
	writeGooglePart(t, src, "part-00000-of-00005.csv.gz", "0,,7,0,early,0,n,l\n"+googlePart(GoogleWindowStartUS, 50, "a")+"bad,row\n")
	writeGooglePart(t, src, "part-00001-of-00005.csv.gz", p1)
	writeGooglePart(t, src, "part-00002-of-00005.csv", first+"\n"+googlePart(GoogleWindowStartUS+2*day, 30, "c"))
	writeGooglePart(t, src, "part-00003-of-00005.csv.gz", googlePart(GoogleWindowStartUS+3*day, 60, "d"))
	g := Google2011Reader{Workers: 2}

	check := func(step string, wantRead, wantRemoved []string) *DatasetReport {
		t.Helper()
		rep := ingestDataset(t, g, src, out)
		if !slices.Equal(rep.Read, wantRead) || !slices.Equal(rep.Removed, wantRemoved) {
			t.Fatalf("%s: read %v removed %v, want %v %v", step, rep.Read, rep.Removed, wantRead, wantRemoved)
		}
		sameAsFull(t, g, src, out)
		compareWithSingle(t, src, out)
		return rep
	}
	all := []string{"part-00000-of-00005", "part-00001-of-00005", "part-00002-of-00005", "part-00003-of-00005"}
	rep := check("first ingest", all, nil)
	if ds := rep.Dataset; ds.CrossDuplicates != 1 || ds.Partitions[2].CrossDuplicates != 1 || ds.Total.Quarantined != 2 {
		t.Fatalf("cross duplicates %d (part 2: %d), quarantined %d; want 1, 1, 2", ds.CrossDuplicates, ds.Partitions[2].CrossDuplicates, ds.Total.Quarantined)
	}
	before := dirFiles(t, out)

	// Nothing changed: nothing is read, nothing is rewritten.
	rep = check("unchanged rerun", nil, nil)
	if len(rep.Kept) != 4 {
		t.Fatalf("unchanged rerun kept %v", rep.Kept)
	}
	if after := dirFiles(t, out); !reflect.DeepEqual(before, after) {
		t.Fatal("an unchanged rerun changed the dataset's files")
	}

	// A part added at the end.
	writeGooglePart(t, src, "part-00004-of-00005.csv.gz", googlePart(GoogleWindowStartUS+4*day, 25, "e"))
	check("add", []string{"part-00004-of-00005"}, nil)

	// Part 1 changed in place, same size: only sha256 tells. Part 2, whose
	// quarantined duplicate came from part 1, is read again too.
	changed := strings.Replace(p1, "userb1", "userb7", 1)
	if len(changed) != len(p1) || changed == p1 {
		t.Fatal("fixture: the change must keep the size")
	}
	writeGooglePart(t, src, "part-00001-of-00005.csv.gz", changed)
	check("change", []string{"part-00001-of-00005", "part-00002-of-00005"}, nil)

	// Part 1 removed: part 2's row it repeated is no longer a duplicate
	// and comes back.
	if err := os.Remove(filepath.Join(src, "part-00001-of-00005.csv.gz")); err != nil {
		t.Fatal(err)
	}
	rep = check("remove", []string{"part-00002-of-00005"}, []string{"part-00001-of-00005"})
	if rep.Dataset.CrossDuplicates != 0 {
		t.Errorf("after removing part 1, %d cross duplicates", rep.Dataset.CrossDuplicates)
	}
	if _, err := os.Stat(filepath.Join(out, "job_events", "part-00001-of-00005.parquet")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the removed part's partition is still there (%v)", err)
	}
	checkDuckDBGlob(t, out)
}

// compareWithSingle checks the dataset's rows against one IngestInto of
// all of src: the same events in the same order, the same quarantine
// count and the same arrivals.
func compareWithSingle(t *testing.T, src, dir string) {
	t.Helper()
	single := t.TempDir()
	srep, err := IngestInto(context.Background(), Google2011Reader{Workers: 1}, Request{Inputs: []string{src}, OutDir: single})
	if err != nil {
		t.Fatal(err)
	}
	want, err := ReadParquet[GoogleJobEvent](filepath.Join(single, JobEventsFile))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadParquet[GoogleJobEvent](dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("dataset rows (%d) differ from a single ingest's (%d)", len(got), len(want))
	}
	ds, err := ReadDatasetRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Total != srep.Total {
		t.Errorf("dataset accounting %+v, single ingest %+v", ds.Total, srep.Total)
	}
	if a, b := readArrivals(t, dir), readArrivals(t, single); !reflect.DeepEqual(a, b) {
		t.Errorf("arrivals %v, single ingest %v", a, b)
	}
	if a, err := ReadArrivals(dir); err != nil || !reflect.DeepEqual(a, readArrivals(t, single)) {
		t.Errorf("ReadArrivals of the dataset directory: %v", err)
	}
}

// checkDuckDBGlob reads the dataset's job_events with DuckDB through one
// glob and checks every value against ReadParquet's rows.
func checkDuckDBGlob(t *testing.T, dir string) {
	t.Helper()
	rows, err := ReadParquet[GoogleJobEvent](dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range rows {
		mi := ""
		if r.MissingInfo != nil {
			mi = strconv.Itoa(int(*r.MissingInfo))
		}
		want = append(want, strings.Join([]string{strconv.FormatInt(r.TimestampUS, 10), mi, strconv.FormatInt(r.JobID, 10),
			strconv.Itoa(int(r.EventType)), r.User, strconv.Itoa(int(r.SchedulingClass)), r.JobName, r.LogicalJobName}, "|"))
	}
	out := filepath.Join(t.TempDir(), "all.csv")
	duckdbtest.Query(t, fmt.Sprintf("COPY (SELECT timestamp_us::VARCHAR, missing_info, job_id::VARCHAR, event_type, \"user\", scheduling_class, job_name, logical_job_name FROM read_parquet(%s)) TO %s (HEADER false, DELIMITER '|')",
		duckdbtest.Literal(filepath.Join(dir, "job_events", "*.parquet")), duckdbtest.Literal(out)))
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.Comma = '|'
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, strings.Join(r, "|"))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("duckdb reads %d rows through the glob, ReadParquet %d; first difference at %v", len(got), len(want), firstDiff(got, want))
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("%q vs %q", a[i], b[i])
		}
	}
	return "the end"
}

// TestDatasetCrash stops refreshes at injected faults: while a changed part
// is read, the previous dataset stays byte for byte as it was and
// readable; in the middle of the commit's renames, the directory has no
// _dataset.json (ReadParquet refuses it) and the next refresh finishes the
// commit, giving what a full ingest writes.
func TestDatasetCrash(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	for i := range 3 {
		writeGooglePart(t, src, fmt.Sprintf("part-%05d-of-00003.csv.gz", i), googlePart(GoogleWindowStartUS+int64(i)*86_400_000_000, 20+i, strconv.Itoa(i)))
	}
	g := Google2011Reader{Workers: 1}
	ingestDataset(t, g, src, out)
	before := dirFiles(t, out)
	rowsBefore, err := ReadParquet[GoogleJobEvent](out)
	if err != nil {
		t.Fatal(err)
	}
	writeGooglePart(t, src, "part-00001-of-00003.csv.gz", googlePart(GoogleWindowStartUS+86_400_000_000, 33, "x"))
	writeGooglePart(t, src, "part-00002-of-00003.csv.gz", googlePart(GoogleWindowStartUS+2*86_400_000_000, 34, "y"))

	crash := errors.New("injected crash")
	defer func() { datasetFault = nil }()
	datasetFault = func(point string) error {
		if point == "read part-00002-of-00003" {
			return crash
		}
		return nil
	}
	if _, err := IngestDataset(context.Background(), g, Request{Inputs: []string{src}, OutDir: out}); !errors.Is(err, crash) {
		t.Fatalf("refresh with a fault while reading: %v", err)
	}
	if after := dirFiles(t, out); !reflect.DeepEqual(before, after) {
		t.Fatal("a refresh that failed while reading changed the dataset")
	}
	if rows, err := ReadParquet[GoogleJobEvent](out); err != nil || !reflect.DeepEqual(rows, rowsBefore) {
		t.Fatalf("the previous dataset no longer reads the same: %v", err)
	}

	// A cancelled refresh leaves it too.
	datasetFault = nil
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := IngestDataset(ctx, g, Request{Inputs: []string{src}, OutDir: out}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled refresh: %v", err)
	}
	if after := dirFiles(t, out); !reflect.DeepEqual(before, after) {
		t.Fatal("a cancelled refresh changed the dataset")
	}

	// Killed between the commit's renames: the second partition file.
	renames := 0
	datasetFault = func(point string) error {
		if strings.HasPrefix(point, "commit ") {
			if renames++; renames == 3 {
				return crash
			}
		}
		return nil
	}
	if _, err := IngestDataset(context.Background(), g, Request{Inputs: []string{src}, OutDir: out}); !errors.Is(err, crash) {
		t.Fatalf("refresh with a fault in the commit: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, DatasetFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("mid-commit, %s is there (%v): it would vouch for a mixture", DatasetFile, err)
	}
	if _, err := ReadParquet[GoogleJobEvent](out); err == nil {
		t.Fatal("ReadParquet read a half-committed dataset")
	}
	datasetFault = nil
	rep := ingestDataset(t, g, src, out)
	if len(rep.Read) != 0 {
		t.Errorf("after finishing the killed commit, the refresh read %v again", rep.Read)
	}
	sameAsFull(t, g, src, out)
}

// TestDatasetJobs partitions a jobs source (pai-sim) whose two files share
// a job id: the later file's row is quarantined, naming the partition,
// and comes back when the earlier file goes. Reading the dataset equals a
// single ingest of the same files.
func TestDatasetJobs(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	head, err := os.ReadFile("testdata/pai-sim/simulator_jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(head)), "\n")
	if err := os.WriteFile(filepath.Join(src, "a.csv"), []byte(strings.Join(lines[:3], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// b repeats a's job 2 and adds job 5.
	if err := os.WriteFile(filepath.Join(src, "b.csv"), []byte(lines[0]+"\n"+lines[2]+"\n"+lines[3]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := PAISimReader{}
	rep := ingestDataset(t, r, src, out)
	if rep.Dataset.CrossDuplicates != 1 || rep.Dataset.Total != (Accounting{Read: 4, Accepted: 3, Quarantined: 1}) {
		t.Fatalf("dataset %+v, %d cross duplicates", rep.Dataset.Total, rep.Dataset.CrossDuplicates)
	}
	q, err := ReadParquet[Rejected](filepath.Join(out, "quarantine", "b.parquet"))
	if err != nil || len(q) != 1 || !strings.Contains(q[0].Reason, "already in partition a") || q[0].Line != 2 {
		t.Fatalf("quarantine of b: %+v, %v", q, err)
	}
	single := t.TempDir()
	if _, err := IngestInto(context.Background(), r, Request{Inputs: []string{src}, OutDir: single}); err != nil {
		t.Fatal(err)
	}
	want, err := ReadParquet[Job](filepath.Join(single, JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadParquet[Job](filepath.Join(out, DatasetFile))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("dataset jobs %+v\nsingle ingest %+v", got, want)
	}
	if info, err := InspectTable(out); err != nil || info.Kind != KindJobs || info.Rows != 3 {
		t.Errorf("InspectTable of the dataset: %+v, %v", info, err)
	}
	if err := os.Remove(filepath.Join(src, "a.csv")); err != nil {
		t.Fatal(err)
	}
	rep = ingestDataset(t, r, src, out)
	if !slices.Equal(rep.Read, []string{"b"}) || rep.Dataset.Total != (Accounting{Read: 2, Accepted: 2}) {
		t.Fatalf("after removing a: read %v, total %+v", rep.Read, rep.Dataset.Total)
	}
	sameAsFull(t, r, src, out)

	// A dataset directory takes no single-file ingest, and the reverse.
	if _, err := IngestDataset(context.Background(), r, Request{Inputs: []string{src}, OutDir: single}); err == nil {
		t.Error("a partitioned ingest into a single-file ingest's directory was accepted")
	}
	if _, err := IngestInto(context.Background(), r, Request{Inputs: []string{src}, OutDir: out}); err == nil {
		t.Error("a single-file ingest into a dataset's directory was accepted")
	}
}

// TestDatasetGoogleReal refreshes a dataset of ten real parts (six under
// the race detector; make test-norace refreshes ten) after dropping,
// changing and re-adding parts, against a full ingest; skipped without
// ../shared.
func TestDatasetGoogleReal(t *testing.T) {
	dir := shareddata.Path(t, "google-2011/job_events")
	src, out := t.TempDir(), t.TempDir()
	n := 10
	if raceEnabled {
		n = 6 // part 4, removed below, is still one of several
	}
	for i := range n {
		name := fmt.Sprintf("part-%05d-of-00500.csv.gz", i)
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := Google2011Reader{}
	ingestDataset(t, g, src, out)
	if err := os.Remove(filepath.Join(src, "part-00004-of-00500.csv.gz")); err != nil {
		t.Fatal(err)
	}
	rep := ingestDataset(t, g, src, out)
	if len(rep.Read) != 0 || !slices.Equal(rep.Removed, []string{"part-00004-of-00500"}) {
		t.Fatalf("remove: read %v, removed %v", rep.Read, rep.Removed)
	}
	sameAsFull(t, g, src, out)
	compareWithSingle(t, src, out)
	checkDuckDBGlob(t, out)
}
