package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/array"
	aparquet "github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/schema"
	"github.com/schedlab/schedlab/internal/parquettest"
)

// The files these tests read are written with Arrow's low-level Parquet
// writer, which lets a test spell the schema node by node and the
// definition and repetition levels value by value: the mismatched tables
// are valid Parquet that Arrow itself reads back (parquettest.ReadTableMeta fails the
// test otherwise), which is the point, since a reader that maps columns by
// name reads them as zeros.

// arrowColumn is one leaf column of a hand-built file: its values (only
// the non-null ones) and levels as the Parquet format stores them.
type arrowColumn struct {
	values   any // []string, []int32, []int64, []float32 or []float64
	def, rep []int16
}

// column is f of every row, in order.
func column[R, V any](rows []R, f func(R) V) []V {
	var out []V
	for _, r := range rows {
		out = append(out, f(r))
	}
	return out
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func writeArrowParquet(t *testing.T, path string, root *schema.GroupNode, cols []arrowColumn) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := file.NewParquetWriter(f, root)
	rg := w.AppendRowGroup()
	for i, c := range cols {
		cw, err := rg.NextColumn()
		if err != nil {
			t.Fatalf("column %d: %v", i, err)
		}
		switch v := c.values.(type) {
		case []string:
			b := make([]aparquet.ByteArray, len(v))
			for k, s := range v {
				b[k] = aparquet.ByteArray(s)
			}
			_, err = cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(b, c.def, c.rep)
		case []int32:
			_, err = cw.(*file.Int32ColumnChunkWriter).WriteBatch(v, c.def, c.rep)
		case []int64:
			_, err = cw.(*file.Int64ColumnChunkWriter).WriteBatch(v, c.def, c.rep)
		case []float32:
			_, err = cw.(*file.Float32ColumnChunkWriter).WriteBatch(v, c.def, c.rep)
		case []float64:
			_, err = cw.(*file.Float64ColumnChunkWriter).WriteBatch(v, c.def, c.rep)
		default:
			t.Fatalf("column %d: values of type %T", i, v)
		}
		if err != nil {
			t.Fatalf("column %d: %v", i, err)
		}
		if err := cw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := rg.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// Leaf and group nodes of hand-built schemas.
func textNode(name string, rep aparquet.Repetition) schema.Node {
	return must(schema.NewPrimitiveNodeLogical(name, rep, schema.StringLogicalType{}, aparquet.Types.ByteArray, -1, -1))
}

func numNode(name string, rep aparquet.Repetition, typ aparquet.Type) schema.Node {
	return must(schema.NewPrimitiveNode(name, rep, typ, -1, -1))
}

func intNode(name string, rep aparquet.Repetition, bits int8, signed bool) schema.Node {
	typ := aparquet.Types.Int32
	if bits == 64 {
		typ = aparquet.Types.Int64
	}
	return must(schema.NewPrimitiveNodeLogical(name, rep, schema.NewIntLogicalType(bits, signed), typ, -1, -1))
}

// jobsSpec describes a two-job jobs table: the canonical one, or one that
// differs from it in one way.
type jobsSpec struct {
	elem           string             // the tasks list's element name; "" means "element"
	nullable       bool               // every node optional, as DuckDB and Arrow write
	omit           string             // a top-level column left out
	gpuAsText      bool               // tasks' gpu written as STRING
	instancesInt64 bool               // tasks' instances written as INT64
	defs           map[string][]int16 // a leaf's definition levels, replacing the full ones
}

// The rows every jobsSpec file holds, unless defs nulls some of them.
func specJobs() []Job {
	return []Job{
		{JobID: "j1", Source: "test", SubmitS: 0, DurationS: 3600, User: "u1", Status: "ok", Model: "ResNet-50",
			Tasks: []Task{{Role: RoleWorker, Instances: 2, GPU: 1, CPU: 4, MemGiB: 8}}},
		{JobID: "j2", Source: "test", SubmitS: 60, DurationS: 7200, User: "u2", Status: "ok", Model: "",
			Tasks: []Task{{Role: RolePS, Instances: 1, GPU: 0, CPU: 2, MemGiB: 4}, {Role: RoleWorker, Instances: 4, GPU: 2, CPU: 8, MemGiB: 16}}},
	}
}

func writeJobsSpec(t *testing.T, path string, s jobsSpec) {
	t.Helper()
	top, inner := aparquet.Repetitions.Required, aparquet.Repetitions.Required
	topDef, taskDef := int16(0), int16(1)
	if s.nullable {
		top, inner = aparquet.Repetitions.Optional, aparquet.Repetitions.Optional
		topDef, taskDef = 1, 4
	}
	jobs := specJobs()
	var tasks []Task
	var taskRep []int16
	for _, j := range jobs {
		for k, tk := range j.Tasks {
			tasks = append(tasks, tk)
			taskRep = append(taskRep, int16(min(k, 1)))
		}
	}
	type leaf struct {
		node   schema.Node
		values any
		task   bool
	}
	strs := func(f func(Job) string) []string { return column(jobs, f) }
	nums := func(f func(Job) float64) []float64 { return column(jobs, f) }
	taskNums := func(f func(Task) float64) []float64 { return column(tasks, f) }
	var roles, gpuText []string
	var inst32 []int32
	var inst64 []int64
	for _, tk := range tasks {
		roles = append(roles, tk.Role)
		gpuText = append(gpuText, strconv.FormatFloat(tk.GPU, 'g', -1, 64))
		inst32 = append(inst32, tk.Instances)
		inst64 = append(inst64, int64(tk.Instances))
	}
	leaves := map[string]leaf{
		"job_id":     {textNode("job_id", top), strs(func(j Job) string { return j.JobID }), false},
		"source":     {textNode("source", top), strs(func(j Job) string { return j.Source }), false},
		"submit_s":   {numNode("submit_s", top, aparquet.Types.Double), nums(func(j Job) float64 { return j.SubmitS }), false},
		"duration_s": {numNode("duration_s", top, aparquet.Types.Double), nums(func(j Job) float64 { return j.DurationS }), false},
		"user":       {textNode("user", top), strs(func(j Job) string { return j.User }), false},
		"status":     {textNode("status", top), strs(func(j Job) string { return j.Status }), false},
		"model":      {textNode("model", top), strs(func(j Job) string { return j.Model }), false},
		"role":       {textNode("role", inner), roles, true},
		"instances":  {intNode("instances", inner, 32, true), inst32, true},
		"gpu":        {numNode("gpu", inner, aparquet.Types.Double), taskNums(func(t Task) float64 { return t.GPU }), true},
		"cpu":        {numNode("cpu", inner, aparquet.Types.Double), taskNums(func(t Task) float64 { return t.CPU }), true},
		"mem_gib":    {numNode("mem_gib", inner, aparquet.Types.Double), taskNums(func(t Task) float64 { return t.MemGiB }), true},
	}
	if s.gpuAsText {
		leaves["gpu"] = leaf{textNode("gpu", inner), gpuText, true}
	}
	if s.instancesInt64 {
		leaves["instances"] = leaf{intNode("instances", inner, 64, true), inst64, true}
	}
	var fields, taskFields schema.FieldList
	var cols []arrowColumn
	for _, name := range []string{"job_id", "source", "submit_s", "duration_s", "user", "status", "model", "role", "instances", "gpu", "cpu", "mem_gib"} {
		if name == s.omit {
			continue
		}
		l := leaves[name]
		full, rep := topDef, []int16(nil)
		if l.task {
			full, rep = taskDef, taskRep
			taskFields = append(taskFields, l.node)
		} else {
			fields = append(fields, l.node)
		}
		n := reflect.ValueOf(l.values).Len()
		def := make([]int16, n)
		for i := range def {
			def[i] = full
		}
		if d, ok := s.defs[name]; ok {
			def = d
		}
		// Only the values of entries defined to the full depth are stored.
		vals := reflect.MakeSlice(reflect.TypeOf(l.values), 0, n)
		for i := range n {
			if def[i] == full {
				vals = reflect.Append(vals, reflect.ValueOf(l.values).Index(i))
			}
		}
		if full == 0 {
			def = nil
		}
		cols = append(cols, arrowColumn{values: vals.Interface(), def: def, rep: rep})
	}
	elem := s.elem
	if elem == "" {
		elem = "element"
	}
	element := must(schema.NewGroupNode(elem, inner, taskFields, -1))
	list := must(schema.NewGroupNode("list", aparquet.Repetitions.Repeated, schema.FieldList{element}, -1))
	fields = append(fields, must(schema.NewGroupNodeLogical("tasks", top, schema.FieldList{list}, schema.ListLogicalType{}, -1)))
	writeArrowParquet(t, path, must(schema.NewGroupNode("schema", aparquet.Repetitions.Required, fields, -1)), cols)
}

// TestReadParquetSchema reads jobs tables that are valid Parquet but not
// the canonical jobs table: each must be refused with an error naming the
// file and the column, never read with zeros where the column was; the
// canonical table and ones that differ only harmlessly (nullable columns
// without nulls, an empty task list) are read exactly.
func TestReadParquetSchema(t *testing.T) {
	full := func(n int, d int16) []int16 {
		out := make([]int16, n)
		for i := range out {
			out[i] = d
		}
		return out
	}
	noTasksForJ1 := func(level int16) map[string][]int16 {
		m := map[string][]int16{}
		for _, leaf := range []string{"role", "instances", "gpu", "cpu", "mem_gib"} {
			m[leaf] = []int16{level, 4, 4}
		}
		return m
	}
	nullSecondTask := map[string][]int16{}
	for _, leaf := range []string{"role", "instances", "gpu", "cpu", "mem_gib"} {
		nullSecondTask[leaf] = []int16{4, 2, 4}
	}
	emptyJ1 := specJobs()
	emptyJ1[0].Tasks = []Task{}
	for _, tc := range []struct {
		name   string
		spec   jobsSpec
		column string // the column the error names; "" if the table is read
		msg    string // more of the error message
		want   []Job  // the rows read when column is ""
	}{
		{name: "canonical", want: specJobs()},
		{name: "nullable without nulls", spec: jobsSpec{nullable: true}, want: specJobs()},
		{name: "empty task list", spec: jobsSpec{nullable: true, defs: noTasksForJ1(1)}, want: emptyJ1},
		{name: "list element named item", spec: jobsSpec{elem: "item"}, column: "tasks.list.element", msg: "tasks.list has: item"},
		{name: "list element named item, nullable", spec: jobsSpec{elem: "item", nullable: true}, column: "tasks.list.element"},
		{name: "submit_s missing", spec: jobsSpec{omit: "submit_s"}, column: "submit_s", msg: "no such column"},
		{name: "nested column missing", spec: jobsSpec{omit: "gpu"}, column: "tasks.list.element.gpu", msg: "no such column"},
		{name: "gpu as text", spec: jobsSpec{gpuAsText: true}, column: "tasks.list.element.gpu", msg: "type BYTE_ARRAY STRING, want DOUBLE"},
		{name: "instances as INT64", spec: jobsSpec{instancesInt64: true}, column: "tasks.list.element.instances", msg: "want INT32"},
		{name: "null submit_s", spec: jobsSpec{nullable: true, defs: map[string][]int16{"submit_s": {1, 0}}}, column: "submit_s", msg: "null in row 2"},
		{name: "all job ids null", spec: jobsSpec{nullable: true, defs: map[string][]int16{"job_id": full(2, 0)}}, column: "job_id", msg: "null in row 1"},
		{name: "null gpu", spec: jobsSpec{nullable: true, defs: map[string][]int16{"gpu": {4, 3, 4}}}, column: "tasks.list.element.gpu", msg: "null in row 2"},
		{name: "null task", spec: jobsSpec{nullable: true, defs: nullSecondTask}, column: "tasks.list.element", msg: "null in row 2"},
		{name: "null task list", spec: jobsSpec{nullable: true, defs: noTasksForJ1(0)}, column: "tasks", msg: "null in row 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "jobs.parquet")
			writeJobsSpec(t, path, tc.spec)
			_, tbl := parquettest.ReadTableMeta(t, path) // valid Parquet, whatever we make of it
			if tbl.NumRows() != 2 {
				t.Fatalf("Arrow reads %d rows, want 2", tbl.NumRows())
			}
			// The schema alone: ReadParquet then holds the rows to the
			// bounds, which refuse the job without a task (TestReadParquetBounds).
			got, err := readParquetFile[Job](path, nil)
			if tc.column == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("read\n%+v\nwant\n%+v", got, tc.want)
				}
				return
			}
			checkSchemaError(t, err, path, tc.column, tc.msg)
			// describe refuses it too, before printing anything: as not a
			// jobs table at all when a column that tells one is missing.
			switch info, err := InspectTable(path); {
			case strings.Contains(tc.msg, "null"): // found by reading, not by the footer
			case tc.spec.omit == "submit_s":
				if err != nil || info.Kind != "" {
					t.Fatalf("InspectTable: %+v, %v; want no kind", info, err)
				}
			default:
				checkSchemaError(t, err, path, tc.column, tc.msg)
			}
		})
	}
}

func checkSchemaError(t *testing.T, err error, path, column, msg string) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != path || ie.Field != column || !errors.Is(err, ErrFormat) {
		t.Fatalf("error %v (%#v), want an InputError for %s, column %s", err, ie, path, column)
	}
	if s := err.Error(); !strings.Contains(s, path) || !strings.Contains(s, column) || !strings.Contains(s, msg) {
		t.Fatalf("error %q does not name the file, the column %s or say %q", s, column, msg)
	}
}

// TestReadParquetSchemaArrowTasks checks that the element-renamed table is
// what its test says: Arrow reads its three tasks with their GPUs.
func TestReadParquetSchemaArrowTasks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jobs.parquet")
	writeJobsSpec(t, path, jobsSpec{elem: "item"})
	_, tbl := parquettest.ReadTableMeta(t, path)
	tasks := tbl.Column(tbl.Schema().FieldIndices("tasks")[0]).Data().Chunk(0).(*array.List)
	st := tasks.ListValues().(*array.Struct)
	var gpus []float64
	for i := range st.Len() {
		gpus = append(gpus, st.Field(2).(*array.Float64).Value(i))
	}
	if !reflect.DeepEqual(gpus, []float64{1, 0, 2}) {
		t.Fatalf("Arrow reads task GPUs %v, want [1 0 2]", gpus)
	}
}

// TestReadParquetWidening reads an arrivals table as DuckDB writes one from
// INTEGER and REAL columns: INT32 and FLOAT widen losslessly to the int64
// and float64 of Arrival, nullable columns without nulls are fine. An
// unsigned 64-bit or a timestamp column is not a count or a number of
// seconds, and is refused.
func TestReadParquetWidening(t *testing.T) {
	opt := aparquet.Repetitions.Optional
	write := func(t *testing.T, interval, start, jobs schema.Node, cols []arrowColumn) string {
		path := filepath.Join(t.TempDir(), "arrivals.parquet")
		writeArrowParquet(t, path, must(schema.NewGroupNode("schema", aparquet.Repetitions.Required, schema.FieldList{interval, start, jobs}, -1)), cols)
		parquettest.ReadTableMeta(t, path)
		return path
	}
	def := []int16{1, 1, 1}
	path := write(t, intNode("interval", opt, 32, true), numNode("start_s", opt, aparquet.Types.Float), intNode("jobs", opt, 16, false), []arrowColumn{
		{values: []int32{2, 0, 1}, def: def}, {values: []float32{3600, 0, 1800.5}, def: def}, {values: []int32{7, 65535, 0}, def: def},
	})
	got, err := ReadArrivals(path)
	want := []Arrival{{0, 0, 65535}, {1, 1800.5, 0}, {2, 3600, 7}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read %+v, %v; want %+v", got, err, want)
	}

	path = write(t, intNode("interval", opt, 64, true), numNode("start_s", opt, aparquet.Types.Double), intNode("jobs", opt, 64, false), []arrowColumn{
		{values: []int64{0}, def: []int16{1}}, {values: []float64{0}, def: []int16{1}}, {values: []int64{1}, def: []int16{1}},
	})
	_, err = ReadArrivals(path)
	checkSchemaError(t, err, path, "jobs", "type INT64 INT(64,false), want INT64 INT(64,true)")

	ts := must(schema.NewPrimitiveNodeLogical("start_s", opt, schema.NewTimestampLogicalType(true, schema.TimeUnitMicros), aparquet.Types.Int64, -1, -1))
	path = write(t, intNode("interval", opt, 64, true), ts, intNode("jobs", opt, 64, true), []arrowColumn{
		{values: []int64{0}, def: []int16{1}}, {values: []int64{0}, def: []int16{1}}, {values: []int64{1}, def: []int16{1}},
	})
	_, err = ReadArrivals(path)
	checkSchemaError(t, err, path, "start_s", "want DOUBLE")
}
