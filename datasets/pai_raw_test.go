package datasets

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func ingestPAIRaw(t testing.TB, inputs ...string) (*Report, string) {
	t.Helper()
	out := t.TempDir()
	rep, err := PAIRawReader{}.Ingest(context.Background(), Request{Inputs: inputs, OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Total.Check(); err != nil {
		t.Fatal(err)
	}
	return rep, out
}

// TestPAIRawHeaders checks that the embedded header copies are the upstream
// files, when those are at hand.
func TestPAIRawHeaders(t *testing.T) {
	dir := sharedData(t, "pai-v2020")
	for _, table := range []string{paiJobTable, paiTaskTable, paiGroupTag, paiMachineSpec} {
		want, err := os.ReadFile(filepath.Join(dir, table+".header"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(paiHeader(table), ","); got != strings.TrimSpace(string(want)) {
			t.Errorf("%s header %q, upstream %q", table, got, want)
		}
	}
}

// TestPAIRawFixture joins the hand-written tables of testdata/pai_raw, each
// of whose rows is accounted for below.
func TestPAIRawFixture(t *testing.T) {
	const dir = "testdata/pai_raw"
	rep, out := ingestPAIRaw(t, dir)
	jobs, err := ReadParquet[Job](filepath.Join(out, JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	want := []Job{
		// Three tasks: the job runs as long as its longest finished task
		// (the worker, 420 − 120); plan_cpu 600 = 6 cores, plan_gpu 50 =
		// half a GPU, an empty plan_gpu = 0; the group tag names the model.
		{JobID: "iA", Source: SourcePAIV2020, SubmitS: 100, DurationS: 300, User: "u1", Status: "Terminated", Model: "bert", Tasks: []Task{
			{Role: RolePS, Instances: 1, GPU: 0, CPU: 6, MemGiB: 29.296875},
			{Role: RoleWorker, Instances: 2, GPU: 0.5, CPU: 4, MemGiB: 10},
			{Role: RoleOther, Instances: 1, GPU: 0, CPU: 1, MemGiB: 2},
		}},
		{JobID: "iB", Source: SourcePAIV2020, SubmitS: 200, DurationS: 30, User: "u2", Status: "Failed", Tasks: []Task{
			{Role: RoleOther, Instances: 1, GPU: 0, CPU: 8, MemGiB: 16},
		}},
	}
	if !reflect.DeepEqual(jobs, want) {
		t.Errorf("jobs:\n got %+v\nwant %+v", jobs, want)
	}
	file := func(t string) string { return filepath.Join(dir, t+".csv") }
	wantAcc := map[string]Accounting{
		file(paiJobTable):    {Read: 7, Accepted: 2, Quarantined: 5},
		file(paiTaskTable):   {Read: 8, Accepted: 4, Quarantined: 4},
		file(paiGroupTag):    {Read: 3, Accepted: 2, Quarantined: 1},
		file(paiMachineSpec): {Read: 4, Accepted: 3, Quarantined: 1},
	}
	if !reflect.DeepEqual(rep.PerFile, wantAcc) {
		t.Errorf("per file %+v, want %+v", rep.PerFile, wantAcc)
	}
	q, err := ReadParquet[Rejected](filepath.Join(out, QuarantineFile))
	if err != nil {
		t.Fatal(err)
	}
	type rej struct {
		table string
		line  int64
		field string
	}
	wantQ := []rej{
		{paiMachineSpec, 4, "cap_cpu"},
		{paiTaskTable, 7, "inst_num"}, {paiTaskTable, 8, "end_time"},
		{paiJobTable, 3, "job_name"}, {paiJobTable, 4, "job_name"}, {paiJobTable, 5, "job_name"}, {paiJobTable, 6, "start_time"}, {paiJobTable, 7, ""},
		{paiGroupTag, 3, "inst_id"},
		{paiTaskTable, 5, "job_name"}, {paiTaskTable, 6, "job_name"},
	}
	if len(q) != len(wantQ) {
		t.Fatalf("quarantine has %d rows, want %d: %+v", len(q), len(wantQ), q)
	}
	for i, w := range wantQ {
		if q[i].File != file(w.table) || q[i].Line != w.line || q[i].Field != w.field || q[i].Reason == "" {
			t.Errorf("quarantine row %d = %+v, want %+v", i, q[i], w)
		}
	}
	nodes, err := ReadParquet[ClusterNode](filepath.Join(out, ClusterFile))
	if err != nil {
		t.Fatal(err)
	}
	wantNodes := []ClusterNode{
		{Source: SourcePAIV2020, NodeList: paiMachineSpec, Node: "m1", CPU: 96, MemGiB: 512, GPUs: 0, GPUModel: ""},
		{Source: SourcePAIV2020, NodeList: paiMachineSpec, Node: "m2", CPU: 96, MemGiB: 512, GPUs: 8, GPUModel: "V100"},
		{Source: SourcePAIV2020, NodeList: paiMachineSpec, Node: "m3", CPU: 96, MemGiB: 512, GPUs: 2, GPUModel: "T4"},
	}
	if !reflect.DeepEqual(nodes, wantNodes) {
		t.Errorf("cluster:\n got %+v\nwant %+v", nodes, wantNodes)
	}
	tables := map[string]int64{}
	for _, o := range rep.Outputs {
		tables[o.Table] = o.Rows
	}
	if !reflect.DeepEqual(tables, map[string]int64{"jobs": 2, "cluster": 3, "quarantine": 11}) {
		t.Errorf("outputs %+v", rep.Outputs)
	}

	// The join's hash seeds differ from run to run; the files must not.
	_, out2 := ingestPAIRaw(t, dir)
	for _, name := range []string{JobsFile, ClusterFile, QuarantineFile} {
		a, err1 := os.ReadFile(filepath.Join(out, name))
		b, err2 := os.ReadFile(filepath.Join(out2, name))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs (%v, %v)", name, err1, err2)
		}
	}
}

// TestPAIRawMalformed: row-level problems are quarantined (Read = Accepted
// + Quarantined); files the reader cannot or will not read are located
// *InputErrors and leave nothing behind.
func TestPAIRawMalformed(t *testing.T) {
	cases := []struct {
		name        string
		files       map[string]string
		accepted    int64
		quarantined int64
		fileErr     bool
	}{
		{name: "only tasks", files: map[string]string{"pai_task_table.csv": "j,worker,1,T,1,2,100,1,100,V100\n"}, quarantined: 1},
		{name: "only jobs", files: map[string]string{"pai_job_table.csv": "j,i,u,T,1,2\n"}, quarantined: 1},
		{name: "joined", files: map[string]string{"pai_job_table.csv": "j,i,u,T,1,2\n", "pai_task_table.csv": "j,worker,1,T,1,2,100,1,100,V100\n"}, accepted: 2},
		{name: "bad numbers", files: map[string]string{
			"pai_job_table.csv":  "j,i,u,T,1,2\n",
			"pai_task_table.csv": "j,worker,0,T,1,2,100,1,100,V100\nj,worker,1,T,1,2,-100,1,100,V100\nj,worker,1,T,1,2,100,NaN,100,V100\nj,worker,1,T,x,2,100,1,100,V100\n"},
			quarantined: 5},
		{name: "quotes and widths", files: map[string]string{
			"pai_job_table.csv":  "j,i,u,T,1,2\n\"j,i,u,T,1,2\n\n,i,u,T,1,2\nj,,u,T,1,2\n",
			"pai_task_table.csv": "j,worker,1,T,1,2,100,1,100\nj,worker,1,T,1,2,100,1,100,V100,extra\nj,worker,1,T,1,2,100,1,100,V100\n"},
			accepted: 2, quarantined: 5},
		{name: "duplicate group tags", files: map[string]string{
			"pai_job_table.csv":       "j,i,u,T,1,2\n",
			"pai_task_table.csv":      "j,worker,1,T,1,2,100,1,100,V100\n",
			"pai_group_tag_table.csv": "i,u,,g,\ni,u,,g,resnet\n,u,,g,x\n"},
			accepted: 4, quarantined: 1},
		{name: "binary table", files: map[string]string{"pai_job_table.csv": "\x1f\x8b\x08\x00binary"}, fileErr: true},
		{name: "sensor table", files: map[string]string{"pai_sensor_table.csv": "a,b\n"}, fileErr: true},
		{name: "unknown table", files: map[string]string{"jobs.csv": "a,b\n"}, fileErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var inputs []string
			for name, content := range tc.files {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				inputs = append(inputs, p)
			}
			out := filepath.Join(dir, "out")
			rep, err := PAIRawReader{}.Ingest(context.Background(), Request{Inputs: inputs, OutDir: out})
			if tc.fileErr {
				var ie *InputError
				if !errors.As(err, &ie) || !errors.Is(err, ErrFormat) {
					t.Fatalf("err = %v, want an *InputError wrapping ErrFormat", err)
				}
				if ents, _ := os.ReadDir(out); len(ents) != 0 {
					t.Errorf("a failed ingest left %d files", len(ents))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := Accounting{Read: tc.accepted + tc.quarantined, Accepted: tc.accepted, Quarantined: tc.quarantined}
			if rep.Total != want || rep.Total.Check() != nil {
				t.Errorf("accounting %+v, want %+v", rep.Total, want)
			}
			q, err := ReadParquet[Rejected](filepath.Join(out, QuarantineFile))
			if err != nil || int64(len(q)) != tc.quarantined {
				t.Errorf("quarantine: %d rows (%v), want %d", len(q), err, tc.quarantined)
			}
		})
	}
}

// TestPAIRawMachineSpecReal reads the real machine table and checks it
// against a plain count of the CSV. The file holds 1,897 distinct machines
// (the data README says 1,896).
func TestPAIRawMachineSpecReal(t *testing.T) {
	path := filepath.Join(sharedData(t, "pai-v2020"), "pai_machine_spec.csv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gpus := map[string]int32{}
	var rows int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), ",")
		n, err := strconv.Atoi(fs[4])
		if err != nil {
			t.Fatal(err)
		}
		gpus[fs[1]] += int32(n)
		rows++
	}
	rep, out := ingestPAIRaw(t, path)
	if rows != 1897 || rep.Total != (Accounting{Read: rows, Accepted: rows}) {
		t.Fatalf("accounting %+v for %d rows, want 1897 all accepted", rep.Total, rows)
	}
	nodes, err := ReadParquet[ClusterNode](filepath.Join(out, ClusterFile))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int32{}
	for _, n := range nodes {
		m := n.GPUModel
		if m == "" {
			m = "CPU"
		}
		got[m] += n.GPUs
		// The data README's "V100 machines: 8 GPUs, 96 cores, 512 GB"
		// holds for GPUs and cores; some V100 machines have 384 GB.
		if n.GPUModel == "V100" && (n.GPUs != 8 || n.CPU != 96 || (n.MemGiB != 512 && n.MemGiB != 384)) {
			t.Errorf("V100 machine %+v, want 8 GPUs, 96 cores, 384 or 512 GiB", n)
		}
	}
	if !reflect.DeepEqual(got, gpus) {
		t.Errorf("GPUs by type %v, want %v", got, gpus)
	}
}
