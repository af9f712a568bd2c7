package datasets

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// SchemaVersion is written to every Parquet file's key-value metadata as
// schedlab.schema_version. Bump it when a canonical schema changes.
const SchemaVersion = "1"

// Task roles of the jobs table.
const (
	RoleWorker = "worker"
	RolePS     = "ps"
	RoleOther  = "other"
)

// Task is one task group of a job: Instances identical instances, each
// requesting the resources below (resources are per instance).
type Task struct {
	Role      string  `parquet:"role" json:"role"`
	Instances int32   `parquet:"instances" json:"instances"`
	GPU       float64 `parquet:"gpu" json:"gpu"`
	CPU       float64 `parquet:"cpu" json:"cpu"`         // cores
	MemGiB    float64 `parquet:"mem_gib" json:"mem_gib"` // GiB
}

// Job is one row of the canonical jobs table (DESIGN.md §2).
type Job struct {
	JobID     string  `parquet:"job_id" json:"job_id"`
	Source    string  `parquet:"source" json:"source"`
	SubmitS   float64 `parquet:"submit_s" json:"submit_s"`     // seconds from trace start
	DurationS float64 `parquet:"duration_s" json:"duration_s"` // standalone run time, seconds
	User      string  `parquet:"user" json:"user"`
	Status    string  `parquet:"status" json:"status"`
	Model     string  `parquet:"model" json:"model"` // workload type, "" if unknown
	Tasks     []Task  `parquet:"tasks,list" json:"tasks"`
}

// TotalGPU is the job's GPU request summed over all its instances.
func (j *Job) TotalGPU() float64 {
	var s float64
	for _, t := range j.Tasks {
		s += float64(t.Instances) * t.GPU
	}
	return s
}

// Instances is the number of instances over all tasks.
func (j *Job) Instances() int {
	var n int
	for _, t := range j.Tasks {
		n += int(t.Instances)
	}
	return n
}

var taskType = arrow.StructOf(
	arrow.Field{Name: "role", Type: arrow.BinaryTypes.String},
	arrow.Field{Name: "instances", Type: arrow.PrimitiveTypes.Int32},
	arrow.Field{Name: "gpu", Type: arrow.PrimitiveTypes.Float64},
	arrow.Field{Name: "cpu", Type: arrow.PrimitiveTypes.Float64},
	arrow.Field{Name: "mem_gib", Type: arrow.PrimitiveTypes.Float64},
)

// JobsSchema is the Arrow schema of the jobs table; its columns and order
// match the Parquet schema of Job.
var JobsSchema = arrow.NewSchema([]arrow.Field{
	{Name: "job_id", Type: arrow.BinaryTypes.String},
	{Name: "source", Type: arrow.BinaryTypes.String},
	{Name: "submit_s", Type: arrow.PrimitiveTypes.Float64},
	{Name: "duration_s", Type: arrow.PrimitiveTypes.Float64},
	{Name: "user", Type: arrow.BinaryTypes.String},
	{Name: "status", Type: arrow.BinaryTypes.String},
	{Name: "model", Type: arrow.BinaryTypes.String},
	{Name: "tasks", Type: arrow.ListOf(taskType)},
}, nil)

// JobsBuilder accumulates Jobs into Arrow record batches of JobsSchema.
type JobsBuilder struct {
	b *array.RecordBuilder
}

// NewJobsBuilder returns a builder allocating from mem.
func NewJobsBuilder(mem memory.Allocator) *JobsBuilder {
	return &JobsBuilder{b: array.NewRecordBuilder(mem, JobsSchema)}
}

// Append adds one job.
func (jb *JobsBuilder) Append(j *Job) {
	b := jb.b
	b.Field(0).(*array.StringBuilder).Append(j.JobID)
	b.Field(1).(*array.StringBuilder).Append(j.Source)
	b.Field(2).(*array.Float64Builder).Append(j.SubmitS)
	b.Field(3).(*array.Float64Builder).Append(j.DurationS)
	b.Field(4).(*array.StringBuilder).Append(j.User)
	b.Field(5).(*array.StringBuilder).Append(j.Status)
	b.Field(6).(*array.StringBuilder).Append(j.Model)
	lb := b.Field(7).(*array.ListBuilder)
	lb.Append(true)
	sb := lb.ValueBuilder().(*array.StructBuilder)
	for _, t := range j.Tasks {
		sb.Append(true)
		sb.FieldBuilder(0).(*array.StringBuilder).Append(t.Role)
		sb.FieldBuilder(1).(*array.Int32Builder).Append(t.Instances)
		sb.FieldBuilder(2).(*array.Float64Builder).Append(t.GPU)
		sb.FieldBuilder(3).(*array.Float64Builder).Append(t.CPU)
		sb.FieldBuilder(4).(*array.Float64Builder).Append(t.MemGiB)
	}
}

// Len is the number of jobs appended since the last NewRecord.
func (jb *JobsBuilder) Len() int { return jb.b.Field(0).Len() }

// NewRecord returns the jobs appended so far as a record and resets the
// builder. The caller owns the record and must Release it.
func (jb *JobsBuilder) NewRecord() arrow.Record { return jb.b.NewRecord() }

// Release frees the builder's buffers.
func (jb *JobsBuilder) Release() { jb.b.Release() }

// JobsFromRecord decodes a record of JobsSchema, appending to dst.
func JobsFromRecord(dst []Job, rec arrow.Record) ([]Job, error) {
	if !rec.Schema().Equal(JobsSchema) {
		return dst, fmt.Errorf("datasets: record schema %v is not the jobs schema", rec.Schema())
	}
	id := rec.Column(0).(*array.String)
	src := rec.Column(1).(*array.String)
	sub := rec.Column(2).(*array.Float64)
	dur := rec.Column(3).(*array.Float64)
	usr := rec.Column(4).(*array.String)
	st := rec.Column(5).(*array.String)
	mdl := rec.Column(6).(*array.String)
	tasks := rec.Column(7).(*array.List)
	ts := tasks.ListValues().(*array.Struct)
	role := ts.Field(0).(*array.String)
	inst := ts.Field(1).(*array.Int32)
	gpu := ts.Field(2).(*array.Float64)
	cpu := ts.Field(3).(*array.Float64)
	mem := ts.Field(4).(*array.Float64)
	offs := tasks.Offsets()
	for i := 0; i < int(rec.NumRows()); i++ {
		j := Job{
			JobID: id.Value(i), Source: src.Value(i), SubmitS: sub.Value(i), DurationS: dur.Value(i),
			User: usr.Value(i), Status: st.Value(i), Model: mdl.Value(i),
		}
		lo, hi := int(offs[i]), int(offs[i+1])
		j.Tasks = make([]Task, 0, hi-lo)
		for k := lo; k < hi; k++ {
			j.Tasks = append(j.Tasks, Task{Role: role.Value(k), Instances: inst.Value(k), GPU: gpu.Value(k), CPU: cpu.Value(k), MemGiB: mem.Value(k)})
		}
		dst = append(dst, j)
	}
	return dst, nil
}
