package datasets

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/schedlab/schedlab/internal/parquettest"
)

func sampleJobs() []Job {
	return []Job{
		{JobID: "j1", Source: "test", SubmitS: 0, DurationS: 3600, User: "u1", Status: "Terminated", Model: "resnet50",
			Tasks: []Task{{Role: RoleWorker, Instances: 4, GPU: 1, CPU: 6, MemGiB: 29.3}, {Role: RolePS, Instances: 1, GPU: 0, CPU: 4, MemGiB: 8}}},
		{JobID: "j2", Source: "test", SubmitS: 12.5, DurationS: 60, User: "u2", Status: "Failed", Model: "",
			Tasks: []Task{{Role: RoleOther, Instances: 1, GPU: 0.5, CPU: 2, MemGiB: 1}}},
		{JobID: "j3", Source: "test", SubmitS: 13, DurationS: 1, Tasks: []Task{}},
	}
}

// TestJobsParquetArrowRoundTrip writes jobs with parquet-go through the Arrow
// record path and reads them back with Arrow's own pqarrow reader: a check
// across two independent Parquet implementations.
func TestJobsParquetArrowRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	want := sampleJobs()
	path := filepath.Join(t.TempDir(), "jobs.parquet")
	ch := make(chan arrow.Record, 1)
	jb := NewJobsBuilder(mem)
	for i := range want {
		jb.Append(&want[i])
	}
	ch <- jb.NewRecord()
	close(ch)
	jb.Release()
	n, err := WriteJobsFrom(context.Background(), path, FileMeta{Source: "test", ConfigHash: "abc"}, ch)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(len(want)) {
		t.Fatalf("wrote %d rows, want %d", n, len(want))
	}

	// parquet-go reads back what it wrote (the file as it is: ReadParquet
	// would refuse j3, a job without a task, as ingest does).
	got, err := readParquetFile[Job](path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parquet-go round trip:\n got %+v\nwant %+v", got, want)
	}

	// Arrow's reader sees the same values and our metadata.
	kv, tbl := parquettest.ReadTableMeta(t, path)
	for k, v := range map[string]string{MetaSchemaVersion: SchemaVersion, MetaSource: "test", MetaConfigHash: "abc"} {
		if got := kv.FindValue(k); got == nil || *got != v {
			t.Errorf("metadata %s = %v, want %q", k, got, v)
		}
	}
	tr := array.NewTableReader(tbl, -1)
	defer tr.Release()
	var fromArrow []Job
	for tr.Next() {
		rec := tr.Record()
		if rec.Schema().NumFields() != JobsSchema.NumFields() {
			t.Fatalf("arrow schema %v", rec.Schema())
		}
		fromArrow = decodeLoose(t, fromArrow, rec)
	}
	if !reflect.DeepEqual(fromArrow, want) {
		t.Fatalf("arrow read:\n got %+v\nwant %+v", fromArrow, want)
	}
}

// decodeLoose decodes a jobs record by column position, tolerating the
// nullability and list-element naming differences of another reader.
func decodeLoose(t *testing.T, dst []Job, rec arrow.Record) []Job {
	t.Helper()
	for i, f := range JobsSchema.Fields() {
		if rec.Schema().Field(i).Name != f.Name {
			t.Fatalf("column %d is %q, want %q", i, rec.Schema().Field(i).Name, f.Name)
		}
	}
	tasks := rec.Column(7).(*array.List)
	ts := tasks.ListValues().(*array.Struct)
	offs := tasks.Offsets()
	for i := 0; i < int(rec.NumRows()); i++ {
		j := Job{
			JobID:     rec.Column(0).(*array.String).Value(i),
			Source:    rec.Column(1).(*array.String).Value(i),
			SubmitS:   rec.Column(2).(*array.Float64).Value(i),
			DurationS: rec.Column(3).(*array.Float64).Value(i),
			User:      rec.Column(4).(*array.String).Value(i),
			Status:    rec.Column(5).(*array.String).Value(i),
			Model:     rec.Column(6).(*array.String).Value(i),
			Tasks:     []Task{},
		}
		for k := int(offs[i]); k < int(offs[i+1]); k++ {
			j.Tasks = append(j.Tasks, Task{
				Role:      ts.Field(0).(*array.String).Value(k),
				Instances: ts.Field(1).(*array.Int32).Value(k),
				GPU:       ts.Field(2).(*array.Float64).Value(k),
				CPU:       ts.Field(3).(*array.Float64).Value(k),
				MemGiB:    ts.Field(4).(*array.Float64).Value(k),
			})
		}
		dst = append(dst, j)
	}
	return dst
}
