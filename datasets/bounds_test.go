package datasets

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// resultLike has columns of a results table (evaluation.ResultRow).
type resultLike struct {
	JobID    string  `parquet:"job_id"`
	JCTS     float64 `parquet:"jct_s"`
	GPUs     float64 `parquet:"gpus"`
	Slowdown float64 `parquet:"slowdown"`
	Note     float64 `parquet:"note"` // not in columnBounds: anything goes
}

// sampleLike has nested bounded columns (profiling.Sample's co-runners).
type sampleLike struct {
	ID        string `parquet:"sample_id"`
	CoRunners []struct {
		CPUCores float64 `parquet:"cpu_cores"`
	} `parquet:"co_runners,list"`
}

// Every table read is held to the bounds ingest holds jobs to: a row
// outside them is refused naming the file, the row and the field, and a
// jobs table's job ids must be unique.
func TestReadParquetBounds(t *testing.T) {
	job := func(id string, submit, dur float64, inst int32) Job {
		return Job{JobID: id, SubmitS: submit, DurationS: dur, Tasks: []Task{{Role: "w", Instances: inst, GPU: 1}}}
	}
	for _, tc := range []struct {
		name, field, msg string
		jobs             []Job
	}{
		{"two billion instances", "instances", "2000000000 outside", []Job{job("a", 0, 1, 1), job("b", 0, 1, 2_000_000_000)}},
		{"NaN duration", "duration_s", "NaN", []Job{job("a", 0, math.NaN(), 1)}},
		{"infinite duration", "duration_s", "+Inf", []Job{job("a", 0, math.Inf(1), 1)}},
		{"negative duration", "duration_s", "-5", []Job{job("a", 0, -5, 1)}},
		{"infinite submit", "submit_s", "+Inf", []Job{job("a", math.Inf(1), 1, 1)}},
		{"no task", "tasks", "no task", []Job{{JobID: "a", DurationS: 1}}},
		{"one job id for every row", "job_id", `duplicate job id "same": first at`, []Job{job("same", 0, 1, 1), job("same", 1, 1, 1), job("same", 2, 1, 1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "jobs.parquet")
			if err := WriteParquet(path, FileMeta{}, tc.jobs); err != nil {
				t.Fatal(err)
			}
			_, err := ReadParquet[Job](path)
			var ie *InputError
			if !errors.As(err, &ie) || ie.File != path || ie.Field != tc.field || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), "row ") {
				t.Fatalf("ReadParquet: %v; want an error naming %s, a row, field %s and %q", err, path, tc.field, tc.msg)
			}
			// ConcatParquet reads as ReadParquet does.
			cerr := ConcatParquet[Job](context.Background(), filepath.Join(t.TempDir(), "all.parquet"), FileMeta{}, []string{path})
			if !errors.As(cerr, &ie) || ie.Field != tc.field {
				t.Errorf("ConcatParquet: %v, want field %s", cerr, tc.field)
			}
		})
	}
	// The same job id in two inputs of one concatenation.
	a, b := filepath.Join(t.TempDir(), "a.parquet"), filepath.Join(t.TempDir(), "b.parquet")
	WriteParquet(a, FileMeta{}, []Job{job("x", 0, 1, 1)})
	WriteParquet(b, FileMeta{}, []Job{job("y", 0, 1, 1), job("x", 0, 1, 1)})
	if err := ConcatParquet[Job](context.Background(), filepath.Join(t.TempDir(), "all.parquet"), FileMeta{}, []string{a, b}); err == nil ||
		!strings.Contains(err.Error(), `duplicate job id "x": first at `+a+" row 1") || !strings.Contains(err.Error(), b) {
		t.Errorf("a job id in two inputs: %v", err)
	}
	// The bounds hold: at MaxInstances, zero duration, a table is read.
	ok := filepath.Join(t.TempDir(), "ok.parquet")
	WriteParquet(ok, FileMeta{}, []Job{job("a", 0, 0, MaxInstances), job("b", MaxSubmitS, MaxDurationS, 1)})
	if rows, err := ReadParquet[Job](ok); err != nil || len(rows) != 2 {
		t.Errorf("jobs at the bounds: %d rows, %v", len(rows), err)
	}
}

// Other tables: the columns columnBounds names are bounded wherever they
// appear, nested ones included; other columns are not.
func TestReadParquetBoundsOtherTables(t *testing.T) {
	dir := t.TempDir()
	good := []resultLike{{JobID: "a", JCTS: 1, GPUs: 8, Slowdown: 1, Note: math.NaN()}, {JobID: "a", JCTS: 2, Slowdown: 1.5, Note: -1}}
	p := filepath.Join(dir, "good.parquet")
	WriteParquet(p, FileMeta{}, good)
	if rows, err := ReadParquet[resultLike](p); err != nil || len(rows) != 2 {
		t.Fatalf("a plausible results table: %d rows, %v", len(rows), err)
	}
	for field, edit := range map[string]func(r *resultLike){
		"jct_s":    func(r *resultLike) { r.JCTS = math.NaN() },
		"gpus":     func(r *resultLike) { r.GPUs = math.Inf(1) },
		"slowdown": func(r *resultLike) { r.Slowdown = math.Inf(-1) },
	} {
		rows := []resultLike{good[0], good[1]}
		edit(&rows[1])
		p := filepath.Join(dir, field+".parquet")
		WriteParquet(p, FileMeta{}, rows)
		_, err := ReadParquet[resultLike](p)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != field || !strings.Contains(err.Error(), "row 2") {
			t.Errorf("%s out of bounds: %v", field, err)
		}
	}
	s := []sampleLike{{ID: "s"}}
	s[0].CoRunners = append(s[0].CoRunners, struct {
		CPUCores float64 `parquet:"cpu_cores"`
	}{math.Inf(-1)})
	p = filepath.Join(dir, "samples.parquet")
	WriteParquet(p, FileMeta{}, s)
	if _, err := ReadParquet[sampleLike](p); err == nil || !strings.Contains(err.Error(), "cpu_cores") {
		t.Errorf("a co-runner's infinite cores: %v", err)
	}
	arr := filepath.Join(dir, "arrivals.parquet")
	WriteParquet(arr, FileMeta{}, []Arrival{{Interval: 0, StartS: math.NaN(), Jobs: 3}})
	if _, err := ReadArrivals(arr); err == nil || !strings.Contains(err.Error(), "start_s") {
		t.Errorf("arrivals with a NaN start: %v", err)
	}
}
