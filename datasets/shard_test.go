package datasets

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
)

// countingExecutor is the local executor, recording the tasks it ran.
type countingExecutor struct {
	mu    sync.Mutex
	tasks []string
}

func (e *countingExecutor) Run(ctx context.Context, b pipeline.Batch) ([][]byte, error) {
	e.mu.Lock()
	for _, t := range b.Tasks {
		e.tasks = append(e.tasks, t.Name)
	}
	e.mu.Unlock()
	return pipeline.Local{Workers: 3}.Run(ctx, b)
}

// TestDatasetShards: a partitioned ingest with its files read as tasks
// (one per file, three at a time) writes the same dataset, byte for byte,
// as the ingest in the driver, for a Google trace whose part 2 repeats an
// event of part 1 and pai-sim files whose b repeats a job of a and c jobs
// of a and b (those
// partitions, read without the keys before them, are read again by the
// driver). A refresh hands out only the changed file.
func TestDatasetShards(t *testing.T) {
	const day = 86_400_000_000
	gsrc := t.TempDir()
	p1 := googlePart(GoogleWindowStartUS+day, 40, "b")
	writeGooglePart(t, gsrc, "part-00000-of-00004.csv.gz", "0,,7,0,early,0,n,l\n"+googlePart(GoogleWindowStartUS, 50, "a")+"bad,row\n")
	writeGooglePart(t, gsrc, "part-00001-of-00004.csv.gz", p1)
	writeGooglePart(t, gsrc, "part-00002-of-00004.csv", strings.SplitN(p1, "\n", 2)[0]+"\n"+googlePart(GoogleWindowStartUS+2*day, 30, "c"))
	writeGooglePart(t, gsrc, "part-00003-of-00004.csv.gz", googlePart(GoogleWindowStartUS+3*day, 60, "d"))

	psrc := t.TempDir()
	head, err := os.ReadFile("testdata/pai-sim/simulator_jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(head)), "\n")
	for name, rows := range map[string][]string{"a.csv": lines[:3], "b.csv": {lines[0], lines[2], lines[3]}, "c.csv": {lines[0], lines[3], lines[1]}} {
		if err := os.WriteFile(filepath.Join(psrc, name), []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	for _, c := range []struct {
		r    PerFileReader
		src  string
		want int // tasks of the first ingest
		dups int64
	}{{Google2011Reader{Workers: 2}, gsrc, 4, 1}, {PAISimReader{}, psrc, 3, 3}} {
		t.Run(c.r.Source(), func(t *testing.T) {
			local, sharded := t.TempDir(), t.TempDir()
			ingestDataset(t, c.r, c.src, local)
			ex := &countingExecutor{}
			rep, err := IngestDataset(context.Background(), c.r, Request{Inputs: []string{c.src}, OutDir: sharded, Executor: ex})
			if err != nil {
				t.Fatal(err)
			}
			if len(ex.tasks) != c.want || len(rep.Read) != c.want {
				t.Fatalf("ran tasks %v, read %v; want %d", ex.tasks, rep.Read, c.want)
			}
			if rep.Dataset.CrossDuplicates != c.dups {
				t.Errorf("%d cross duplicates, want %d", rep.Dataset.CrossDuplicates, c.dups)
			}
			if a, b := dirFiles(t, local), dirFiles(t, sharded); !reflect.DeepEqual(a, b) {
				for n := range a {
					if string(a[n]) != string(b[n]) {
						t.Errorf("%s differs between the ingest in the driver and the one in tasks", n)
					}
				}
				t.Fatalf("files in the driver's ingest %d, in tasks %d", len(a), len(b))
			}
			// Refresh after one file changed: one task.
			files, _ := filepath.Glob(filepath.Join(c.src, "*"))
			slices.Sort(files)
			last := files[len(files)-1]
			b, _ := os.ReadFile(last)
			text := string(b)
			if strings.HasSuffix(last, ".gz") {
				text = gunzipString(t, b)
			}
			writeGooglePart(t, c.src, filepath.Base(last), strings.Join(strings.Split(strings.TrimSpace(text), "\n")[:2], "\n")+"\n")
			ex.tasks = nil
			if _, err := IngestDataset(context.Background(), c.r, Request{Inputs: []string{c.src}, OutDir: sharded, Executor: ex}); err != nil {
				t.Fatal(err)
			}
			if len(ex.tasks) != 1 {
				t.Errorf("refresh ran tasks %v, want the changed file's", ex.tasks)
			}
			sameAsFull(t, c.r, c.src, sharded)
		})
	}
}

func gunzipString(t *testing.T, b []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
