package datasets

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedlab/schedlab/pipeline"
)

// paiSimInputs writes the header and the given data lines (1-based) of
// the pai-sim test trace to src/name for each name.
func paiSimInputs(t *testing.T, src string, files map[string][]int) {
	t.Helper()
	head, err := os.ReadFile("testdata/pai-sim/simulator_jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(head)), "\n")
	for name, rows := range files {
		text := lines[0] + "\n"
		for _, r := range rows {
			text += lines[r] + "\n"
		}
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func refreshPAISim(src, out string) (*DatasetReport, error) {
	return IngestDataset(context.Background(), PAISimReader{}, Request{Inputs: []string{src}, OutDir: out})
}

// An input whose name is not UTF-8 is refused before anything changes:
// the dataset there stays as it was and later refreshes work.
func TestDatasetRefusesNonUTF8Name(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	paiSimInputs(t, src, map[string][]int{"a.csv": {1, 2}})
	if _, err := refreshPAISim(src, out); err != nil {
		t.Fatal(err)
	}
	before := dirFiles(t, out)
	paiSimInputs(t, src, map[string][]int{"lat\xe9.csv": {3}})
	_, err := refreshPAISim(src, out)
	if err == nil || !strings.Contains(err.Error(), "not valid UTF-8") || !strings.Contains(err.Error(), "rename") {
		t.Fatalf("a Latin-1 file name: %v, want a refusal saying to rename it", err)
	}
	if after := dirFiles(t, out); len(after) != len(before) || string(after[DatasetFile]) != string(before[DatasetFile]) {
		t.Errorf("the refused refresh changed the dataset: %d files, was %d", len(after), len(before))
	}
	os.Remove(filepath.Join(src, "lat\xe9.csv"))
	if rep, err := refreshPAISim(src, out); err != nil || !slices.Equal(rep.Kept, []string{"a"}) {
		t.Errorf("the refresh after: %+v, %v", rep, err)
	}
}

// A damaged record, in the dataset or in a complete staging directory,
// is refused with the command that gets out of it, and that command works.
func TestDatasetDamagedRecordHasAWayOut(t *testing.T) {
	for _, n := range []int{0, 1, 10, 500} {
		src, out := t.TempDir(), t.TempDir()
		paiSimInputs(t, src, map[string][]int{"a.csv": {1, 2}, "b.csv": {3}})
		if _, err := refreshPAISim(src, out); err != nil {
			t.Fatal(err)
		}
		rec := filepath.Join(out, DatasetFile)
		b, _ := os.ReadFile(rec)
		os.WriteFile(rec, b[:min(n, len(b)-1)], 0o644)
		for what, err := range map[string]error{
			"ingest": func() error { _, err := refreshPAISim(src, out); return err }(),
			"read":   func() error { _, err := ReadParquet[Job](out); return err }(),
		} {
			if err == nil || !strings.Contains(err.Error(), "rm "+rec) {
				t.Errorf("%d bytes of the record: %s: %v, want the way out (rm %s)", n, what, err, rec)
			}
		}
		os.Remove(rec)
		if rep, err := refreshPAISim(src, out); err != nil || len(rep.Read) != 2 {
			t.Errorf("%d bytes: ingest after removing the record: %+v, %v", n, rep, err)
		}
		if jobs, err := ReadParquet[Job](out); err != nil || len(jobs) != 3 {
			t.Errorf("%d bytes: the rebuilt dataset: %d jobs, %v", n, len(jobs), err)
		}

		// A complete staging directory whose record is damaged.
		staging, _ := pipeline.MkdirScratch(out, datasetStaging)
		os.WriteFile(filepath.Join(staging, DatasetFile), b[:min(n, len(b)-1)], 0o644)
		_, err := refreshPAISim(src, out)
		if err == nil || !strings.Contains(err.Error(), "rm -r "+staging) {
			t.Errorf("%d bytes of a staged record: %v, want the way out (rm -r %s)", n, err, staging)
		}
		os.RemoveAll(staging)
		if _, err := refreshPAISim(src, out); err != nil {
			t.Errorf("%d bytes of a staged record: ingest after removing it: %v", n, err)
		}
	}
}

// A record is validated: a partition listed twice, counts that disagree
// or a file outside the dataset is refused, by readers and by a refresh.
func TestDatasetRecordValidated(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	paiSimInputs(t, src, map[string][]int{"a.csv": {1, 2}, "b.csv": {3}})
	if _, err := refreshPAISim(src, out); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(out, DatasetFile)
	orig, _ := os.ReadFile(rec)
	outside := filepath.Join(filepath.Dir(out), "outside.parquet")
	os.WriteFile(outside, nil, 0o644)
	for name, edit := range map[string]func(ds *Dataset){
		"partition twice": func(ds *Dataset) { ds.Partitions = append(ds.Partitions, ds.Partitions[1]) },
		"rows 999":        func(ds *Dataset) { ds.Partitions[0].Rows.Accepted, ds.Partitions[0].Rows.Read = 999, 999 },
		"rows 999 in sum": func(ds *Dataset) {
			ds.Partitions[0].Rows.Accepted, ds.Partitions[0].Rows.Read = 999, 999
			ds.Total.Accepted, ds.Total.Read = ds.Total.Accepted+997, ds.Total.Read+997
		},
		"file outside":      func(ds *Dataset) { ds.Partitions[0].Files[0].File = "../" + filepath.Base(outside) },
		"file of another":   func(ds *Dataset) { ds.Partitions[0].Files[0].File = ds.Partitions[1].Files[0].File },
		"bad sha256":        func(ds *Dataset) { ds.Partitions[0].Files[0].SHA256 = "fff" },
		"out of name order": func(ds *Dataset) { ds.Partitions[0], ds.Partitions[1] = ds.Partitions[1], ds.Partitions[0] },
	} {
		var ds Dataset
		json.Unmarshal(orig, &ds)
		edit(&ds)
		b, _ := json.MarshalIndent(ds, "", "  ")
		os.WriteFile(rec, b, 0o644)
		if jobs, err := ReadParquet[Job](out); err == nil {
			t.Errorf("%s: read %d jobs", name, len(jobs))
		}
		if rep, err := refreshPAISim(src, out); err == nil {
			t.Errorf("%s: a refresh took the record (kept %v)", name, rep.Kept)
			os.WriteFile(rec, orig, 0o644)
		}
	}
	os.WriteFile(rec, orig, 0o644)
	if jobs, err := ReadParquet[Job](out); err != nil || len(jobs) != 3 {
		t.Errorf("the record restored: %d jobs, %v", len(jobs), err)
	}
}

// A folder of the dataset that is a link elsewhere is refused: a refresh
// neither writes nor deletes there.
func TestDatasetRefusesLinkedFolder(t *testing.T) {
	src, out, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	paiSimInputs(t, src, map[string][]int{"a.csv": {1, 2}})
	if _, err := refreshPAISim(src, out); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(elsewhere, "z.parquet"), []byte("someone's"), 0o644)
	os.RemoveAll(filepath.Join(out, "jobs"))
	if err := os.Symlink(elsewhere, filepath.Join(out, "jobs")); err != nil {
		t.Fatal(err)
	}
	paiSimInputs(t, src, map[string][]int{"b.csv": {3}})
	_, err := refreshPAISim(src, out)
	if !errors.Is(err, pipeline.ErrOutside) || !strings.Contains(err.Error(), "rm "+filepath.Join(out, "jobs")) {
		t.Errorf("a refresh through a linked folder: %v", err)
	}
	ents, _ := os.ReadDir(elsewhere)
	if len(ents) != 1 || ents[0].Name() != "z.parquet" {
		t.Errorf("the folder the link names now holds %d files", len(ents))
	}
	if _, err := ReadParquet[Job](out); !errors.Is(err, pipeline.ErrOutside) {
		t.Errorf("a read through the link: %v", err)
	}
}

// An input written to while it is read is not recorded with the hash of
// its bytes before: the refresh fails, and the next one reads it again.
func TestDatasetInputChangedWhileRead(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	paiSimInputs(t, src, map[string][]int{"a.csv": {1, 2}})
	a := filepath.Join(src, "a.csv")
	orig, _ := os.ReadFile(a)
	defer func() { datasetFault = nil }()
	datasetFault = func(point string) error {
		if point == "read a" { // hashed, not yet read: a row edited in place
			paiSimInputs(t, src, map[string][]int{"a.csv": {1, 3}})
		}
		return nil
	}
	_, err := refreshPAISim(src, out)
	if err == nil || !strings.Contains(err.Error(), "changed while it was read") || !strings.Contains(err.Error(), a) {
		t.Fatalf("an input edited during the ingest: %v", err)
	}
	datasetFault = nil
	os.WriteFile(a, orig, 0o644) // the original comes back
	rep, err := refreshPAISim(src, out)
	if err != nil || !slices.Equal(rep.Read, []string{"a"}) {
		t.Fatalf("the refresh after: %+v, %v", rep, err)
	}
	sameAsFull(t, PAISimReader{}, src, out)
}

// An input whose name takes 254 bytes has its partition all the same, and
// a refresh keeps it.
func TestDatasetLongInputName(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	long := strings.Repeat("é", 125) + ".csv" // 254 bytes
	paiSimInputs(t, src, map[string][]int{long: {1, 2}, "b.csv": {3}})
	if _, err := refreshPAISim(src, out); err != nil {
		t.Fatal(err)
	}
	if jobs, err := ReadParquet[Job](out); err != nil || len(jobs) != 3 {
		t.Fatalf("read: %d jobs, %v", len(jobs), err)
	}
	rep, err := refreshPAISim(src, out)
	if err != nil || len(rep.Kept) != 2 {
		t.Fatalf("refresh: %+v, %v", rep, err)
	}
	sameAsFull(t, PAISimReader{}, src, out)
}

// A jobs table of many identical rows (a few hundred kilobytes for
// 300 000 rows) is refused at its second row as the rows stream in,
// before the rest are read: the read allocates a small part of what the
// whole table would take. The bound on allocation, which needs the size,
// is checked only without the race detector (below); under it the table
// is of 3 000 rows, refused at the same row.
func TestReadParquetRefusesRepeatedRowsAsTheyStream(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 300 000 rows")
	}
	n := 300_000
	if raceEnabled {
		n = 3_000
	}
	rows := make([]Job, n)
	for i := range rows {
		rows[i] = Job{JobID: "same", Source: "x", SubmitS: 1, DurationS: 1,
			Tasks: []Task{{Role: "worker", Instances: 1, GPU: 1, CPU: 1, MemGiB: 1}}}
	}
	path := filepath.Join(t.TempDir(), "jobs.parquet")
	if err := WriteParquet(path, FileMeta{Source: "test"}, rows); err != nil {
		t.Fatal(err)
	}
	rows = nil
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadParquet[Job](path)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "row 2: duplicate job id") {
		t.Fatalf("ReadParquet: %v, want a duplicate at row 2", err)
	}
	// The whole table would be n rows of 120 bytes and their tasks. The
	// race detector's build allocates more per page read (20 MiB seen), so
	// the bound is checked without it (make test-norace runs this test).
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 && !raceEnabled {
		t.Errorf("ReadParquet allocated %d MiB before refusing row 2", got>>20)
	}
}

// A FIFO given as a trace is refused at once, before the open of a CSV or
// a Google part can wait for a writer that never comes.
func TestTraceReadersRefuseFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "trace.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	done := make(chan error, 2)
	go func() {
		_, err := OpenCSV(fifo, CSVOptions{})
		done <- err
	}()
	go func() {
		done <- (&googleDecoder{}).decode(context.Background(), fifo, 1, func(*googleChunk) error { return nil })
	}()
	for range 2 {
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "FIFO") {
				t.Errorf("a FIFO trace: %v, want it refused as a FIFO", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the open of a FIFO blocked")
		}
	}
}
