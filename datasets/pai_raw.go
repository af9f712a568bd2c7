package datasets

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"path/filepath"
	"strings"
)

// PAIRawReader reads the raw tables of Alibaba's PAI GPU trace 2020
// (alibaba/clusterdata cluster-trace-gpu-v2020: CSVs without a header row,
// fetched by `schedlab datasets fetch pai-v2020`). A file is recognised by
// its base name; a directory stands for the four tables below. Columns are
// those of the upstream *.header files, embedded from pai_raw_headers/;
// a row with another number of fields is quarantined.
//
//   - pai_job_table.csv → one Job per row: job_id = inst_id (the upstream
//     README: "treat inst_id as job_id"), user, status as given, submit_s =
//     start_time (the job table's start_time is the submission; seconds on
//     the trace's shifted clock, kept as given).
//   - pai_task_table.csv, joined on job_name → the job's tasks, one Task per
//     row in file order: role "ps" for task_name ps, "worker" for a name
//     containing "worker" (worker, PyTorchWorker, ...), else "other"
//     (tensorflow, evaluator, chief, ...); instances = inst_num; per
//     instance, cpu = plan_cpu/100 cores (600 = 6 cores), gpu =
//     plan_gpu/100 (50 = half a GPU), mem_gib = plan_mem × PAIMemGiBPerGB.
//     An empty plan_* (the trace leaves it empty when nothing was
//     requested) is 0. duration_s = the longest task's end_time −
//     start_time: the tasks of one job (PS and workers) run side by side,
//     so the job runs as long as its longest task. Tasks without both
//     times (still running) do not count; a job none of whose tasks has
//     both is quarantined ("no finished task").
//   - pai_group_tag_table.csv, joined on inst_id → model = workload where
//     the trace names one (about 9% of jobs), "" otherwise.
//   - pai_machine_spec.csv → cluster.parquet, one ClusterNode per machine:
//     cpu = cap_cpu cores, mem_gib = cap_mem × PAIMemGiBPerGB, gpus =
//     cap_gpu, gpu_model = gpu_type ("" for the CPU-only machines, whose
//     gpu_type is "CPU").
//
// Not read: pai_instance_table and pai_machine_metric (nothing of the jobs
// or cluster tables comes from them) and pai_sensor_table: the measured
// cpu_usage it holds per instance has no column in the canonical jobs
// schema (DESIGN.md §2), so rather than widen that schema for one trace the
// reader leaves it out; naming one of these files is an error.
//
// Accounting: a job row is accepted when its job is written; a task or
// group-tag row when it joined a written job (each row once, however many
// job rows share its key); a machine row when it entered cluster.parquet.
// Everything else is quarantined with the reason: a malformed row; a job
// with no task rows, no finished task, or whose job_name an earlier job row
// already took; a job outside the plausible ranges of CheckJob, or whose
// inst_id (the job id) an earlier written job has; a row with bytes that
// are not UTF-8; a task or group-tag row whose job was not written.
//
// Memory: the join holds the task table (per job_name a 128-bit key, the
// tasks and the longest duration, about 110 bytes for a one-task job) and
// the group-tag table (per inst_id a key and the workload, about 40 bytes)
// in maps and streams the job table, writing jobs as they come, in
// job-table order. Memory is therefore proportional to the number of jobs,
// not bounded: on a synthetic trace of the full trace's size (1.05 million
// jobs and group tags, 1.15 million tasks, 360 MB of CSV) the ingest peaks
// at 785 MiB resident. The task and group-tag rows are accounted for by a
// second pass over their files, which is how unjoined rows reach the
// quarantine with their text without being kept.
type PAIRawReader struct{}

func init() { Register(PAIRawReader{}) }

var _ Publisher = PAIRawReader{}

// PAIMemGiBPerGB converts the trace's plan_mem and cap_mem "GB" to GiB. The
// trace's GB are binary: plan_mem values are whole MiB divided by 1024
// (29.296875 = 30000/1024) and machines have cap_mem 512, so the factor is
// 1, not 10⁹/2³⁰.
const PAIMemGiBPerGB = 1.0

// Source implements Reader.
func (PAIRawReader) Source() string { return SourcePAIV2020 }

// Published: Alibaba's tarballs of the seven raw tables (Publisher).
func (PAIRawReader) Published() (string, []Tarball) { return PAIV2020BaseURL, PAIV2020Tarballs }

// Tables: jobs, and the cluster when the machine spec (pai_machine_spec*)
// is among the inputs.
func (PAIRawReader) Tables(names []string) []string { return withCluster(names, paiMachineSpec) }

// withCluster is JobsFile, and ClusterFile when a name contains list (the
// file a reader builds the cluster table from).
func withCluster(names []string, list string) []string {
	for _, n := range names {
		if strings.Contains(n, list) {
			return []string{JobsFile, ClusterFile}
		}
	}
	return []string{JobsFile}
}

// Describe implements Reader.
func (PAIRawReader) Describe() string {
	return "Alibaba PAI 2020 raw tables (pai_job_table, pai_task_table, pai_group_tag_table, pai_machine_spec CSVs without header) → jobs (job ⋈ task ⋈ group tag), cluster, quarantine"
}

//go:embed pai_raw_headers/*.header
var paiHeaderFS embed.FS

// The PAI tables the reader uses, by file base name (without .csv).
const (
	paiJobTable      = "pai_job_table"
	paiTaskTable     = "pai_task_table"
	paiGroupTag      = "pai_group_tag_table"
	paiMachineSpec   = "pai_machine_spec"
	paiSensorTable   = "pai_sensor_table"
	paiInstTable     = "pai_instance_table"
	paiMachineMetric = "pai_machine_metric"
)

// paiHeader is the column list of one table, from its upstream header file.
func paiHeader(table string) []string {
	b, err := paiHeaderFS.ReadFile("pai_raw_headers/" + table + ".header")
	if err != nil {
		panic("datasets: embedded PAI header " + table + ": " + err.Error())
	}
	return strings.Split(strings.TrimSpace(string(b)), ",")
}

// paiColumns maps a table's column names to positions.
type paiColumns struct {
	n     int
	idx   map[string]int
	names []string // by position, for quarantine reasons
}

func newPAIColumns(table string) paiColumns {
	h := paiHeader(table)
	c := paiColumns{n: len(h), idx: make(map[string]int, len(h)), names: h}
	for i, name := range h {
		c.idx[name] = i
	}
	return c
}

func (c paiColumns) at(name string) int {
	i, ok := c.idx[name]
	if !ok {
		panic("datasets: PAI header has no column " + name)
	}
	return i
}

// paiTableOf names the table a file holds, from its base name.
func paiTableOf(path string) string {
	base := filepath.Base(path)
	for _, t := range []string{paiJobTable, paiTaskTable, paiGroupTag, paiMachineSpec, paiSensorTable, paiInstTable, paiMachineMetric} {
		if strings.HasPrefix(base, t) {
			return t
		}
	}
	return ""
}

// paiKey identifies a job_name or inst_id in the join's maps: a 128-bit
// hash (two independently seeded maphash values) instead of the string,
// which would cost 24 to 60 bytes more per entry and an allocation. Among
// the few million keys of the full trace a collision has a probability
// below 2⁻⁸⁰.
type paiKey [2]uint64

// paiJobTasks is the task rows of one job_name. The first task is held
// inline: most jobs have one.
type paiJobTasks struct {
	first    Task
	more     []Task
	n        int32
	durS     float64 // longest finished task
	finished bool    // some task has both times
	used     bool    // joined to a written job
}

// paiTag is the group-tag rows of one inst_id.
type paiTag struct {
	workload string
	used     bool // joined to a written job
}

// paiSink is where the join sends rows: a *JobsIngest, or in the fuzz
// test an in-memory tally.
type paiSink interface {
	Context() context.Context
	AcceptRow(file string, row CSVRow, j *Job) (bool, error)
	AcceptOther(file string)
	AcceptNodeRow(file string, row CSVRow, n *ClusterNode) (bool, error)
	RejectRow(file string, row CSVRow, err error) error
	EachRow(c *CSVFile, fn func(row CSVRow) error) error
}

// paiJoin is the state of one ingest.
type paiJoin struct {
	ji                            paiSink
	jobCols, taskCols, tagCols    paiColumns
	specCols                      paiColumns
	jobFiles, taskFiles, tagFiles []string
	specFiles                     []string
	seeds                         [2]maphash.Seed
	tasks                         map[paiKey]paiJobTasks
	tags                          map[paiKey]paiTag
}

func (pj *paiJoin) key(s string) paiKey {
	return paiKey{maphash.String(pj.seeds[0], s), maphash.String(pj.seeds[1], s)}
}

// Ingest implements Reader.
func (PAIRawReader) Ingest(ctx context.Context, req Request) (*Report, error) {
	files, err := ExpandInputs(req.Inputs, paiJobTable+"*.csv", paiTaskTable+"*.csv", paiGroupTag+"*.csv", paiMachineSpec+"*.csv")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SourcePAIV2020, err)
	}
	pj := newPAIJoin()
	if err := pj.classify(files); err != nil {
		return nil, err
	}
	var nodes *ParquetWriter[ClusterNode]
	defer func() {
		if nodes != nil {
			nodes.Abort()
		}
	}()
	rep, err := IngestJobs(ctx, req, SourcePAIV2020, files, func(ji *JobsIngest) error {
		if len(pj.specFiles) > 0 {
			var err error
			nodes, err = CreateParquet[ClusterNode](req.OutPath(ClusterFile), FileMeta{Source: SourcePAIV2020, ConfigHash: req.Meta.ConfigHash})
			if err != nil {
				return err
			}
		}
		return pj.run(ji, nodes)
	})
	if err != nil {
		return nil, err
	}
	if err := addClusterTable(rep, req, nodes); err != nil {
		return nil, err
	}
	return rep, nil
}

func newPAIJoin() *paiJoin {
	return &paiJoin{
		jobCols: newPAIColumns(paiJobTable), taskCols: newPAIColumns(paiTaskTable),
		tagCols: newPAIColumns(paiGroupTag), specCols: newPAIColumns(paiMachineSpec),
		seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		tasks: map[paiKey]paiJobTasks{}, tags: map[paiKey]paiTag{},
	}
}

// classify sorts the input files by table.
func (pj *paiJoin) classify(files []string) error {
	for _, f := range files {
		switch t := paiTableOf(f); t {
		case paiJobTable:
			pj.jobFiles = append(pj.jobFiles, f)
		case paiTaskTable:
			pj.taskFiles = append(pj.taskFiles, f)
		case paiGroupTag:
			pj.tagFiles = append(pj.tagFiles, f)
		case paiMachineSpec:
			pj.specFiles = append(pj.specFiles, f)
		case "":
			return &InputError{File: f, Err: fmt.Errorf("%w: not a PAI table (want a file named %s, %s, %s or %s*.csv)", ErrFormat, paiJobTable, paiTaskTable, paiGroupTag, paiMachineSpec)}
		default:
			return &InputError{File: f, Err: fmt.Errorf("%w: %s is not read by the %s reader (it uses %s, %s, %s and %s)", ErrFormat, t, SourcePAIV2020, paiJobTable, paiTaskTable, paiGroupTag, paiMachineSpec)}
		}
	}
	return nil
}

// run reads every table: machines into nodes (nil when there is no machine
// table), then the join, then the second pass.
func (pj *paiJoin) run(sink paiSink, nodes *ParquetWriter[ClusterNode]) error {
	pj.ji = sink
	passes := []struct {
		files []string
		read  func(path string) error
	}{
		{pj.specFiles, func(f string) error { return pj.readSpec(f, nodes) }},
		{pj.tagFiles, func(f string) error { return pj.readTags(f, false) }},
		{pj.taskFiles, func(f string) error { return pj.readTasks(f, false) }},
		{pj.jobFiles, pj.readJobs},
		// Second pass: account for the task and group-tag rows.
		{pj.tagFiles, func(f string) error { return pj.readTags(f, true) }},
		{pj.taskFiles, func(f string) error { return pj.readTasks(f, true) }},
	}
	for _, p := range passes {
		for _, f := range p.files {
			if err := p.read(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// eachRow calls fn with every row of the right width of one headerless
// table. In the first pass (second false) it reports progress and
// quarantines rows that cannot be split or have the wrong width; the second
// pass skips those, since the first has counted them.
func (pj *paiJoin) eachRow(path string, cols paiColumns, second bool, fn func(row *CSVRow) error) error {
	c, err := OpenCSV(path, CSVOptions{NoHeader: true, Names: cols.names})
	if err != nil {
		return err
	}
	defer c.Close()
	each := func(row CSVRow) error {
		if len(row.Fields) != cols.n {
			if second {
				return nil
			}
			return pj.ji.RejectRow(path, row, &BadField{Reason: fmt.Sprintf("row has %d fields, want %d", len(row.Fields), cols.n)})
		}
		return fn(&row)
	}
	if !second {
		return pj.ji.EachRow(c, each)
	}
	ctx := pj.ji.Context()
	for n := 0; ; n++ {
		row, err := c.Next()
		var bad *BadField
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case errors.As(err, &bad):
			continue
		case err != nil:
			return err
		}
		if n%4096 == 0 && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if err := each(row); err != nil {
			return err
		}
	}
}

// idField returns a trimmed, non-empty identifier field.
func idField(row *CSVRow, i int, name string) (string, error) {
	v := strings.TrimSpace(row.Fields[i])
	if v == "" {
		return "", &BadField{Field: name, Reason: "empty"}
	}
	return v, nil
}

// optTime parses an optional time field: empty means unknown.
func optTime(row *CSVRow, i int, name string) (v float64, ok bool, err error) {
	if strings.TrimSpace(row.Fields[i]) == "" {
		return 0, false, nil
	}
	v, err = row.Float(i, name)
	return v, err == nil, err
}

// optRequest parses an optional non-negative request: empty means 0.
func optRequest(row *CSVRow, i int, name string) (float64, error) {
	if strings.TrimSpace(row.Fields[i]) == "" {
		return 0, nil
	}
	return row.NonNegative(i, name)
}

func (pj *paiJoin) readSpec(path string, nodes *ParquetWriter[ClusterNode]) error {
	c := pj.specCols
	var buf []ClusterNode
	err := pj.eachRow(path, c, false, func(row *CSVRow) error {
		n, err := parsePAIMachine(row, c)
		if err != nil {
			return pj.ji.RejectRow(path, *row, err)
		}
		if ok, err := pj.ji.AcceptNodeRow(path, *row, &n); !ok || err != nil {
			return err
		}
		if buf = append(buf, n); len(buf) >= JobsBatchRows {
			err = nodes.Write(buf)
			buf = buf[:0]
		}
		return err
	})
	if err != nil {
		return err
	}
	return nodes.Write(buf)
}

func parsePAIMachine(row *CSVRow, c paiColumns) (ClusterNode, error) {
	machine, err := idField(row, c.at("machine"), "machine")
	if err != nil {
		return ClusterNode{}, err
	}
	cpu, err := row.NonNegative(c.at("cap_cpu"), "cap_cpu")
	if err != nil {
		return ClusterNode{}, err
	}
	mem, err := row.NonNegative(c.at("cap_mem"), "cap_mem")
	if err != nil {
		return ClusterNode{}, err
	}
	gpus, err := row.Count(c.at("cap_gpu"), "cap_gpu", 0, math.MaxInt32)
	if err != nil {
		return ClusterNode{}, err
	}
	model := strings.TrimSpace(row.Fields[c.at("gpu_type")])
	if model == "CPU" {
		model = ""
	}
	return ClusterNode{Source: SourcePAIV2020, NodeList: paiMachineSpec, Node: machine, CPU: cpu,
		MemGiB: mem * PAIMemGiBPerGB, GPUs: int32(gpus), GPUModel: model}, nil
}

// account is the second pass over a row of a table joined to the jobs
// (readTags, readTasks): a row the first pass quarantined (err) is done,
// one whose key (field) joined a written job is accepted, and any other is
// quarantined.
func (pj *paiJoin) account(path string, row *CSVRow, err error, joined bool, field string) error {
	switch {
	case err != nil: // quarantined in the first pass
	case joined:
		pj.ji.AcceptOther(path)
	default:
		return pj.ji.RejectRow(path, *row, &BadField{Field: field, Reason: "no job written with this " + field})
	}
	return nil
}

// readTags loads the group-tag table (first pass) or, once the jobs are
// written, accounts for its rows: accepted when their inst_id joined a
// written job, quarantined otherwise (second pass).
func (pj *paiJoin) readTags(path string, second bool) error {
	c := pj.tagCols
	return pj.eachRow(path, c, second, func(row *CSVRow) error {
		id, err := idField(row, c.at("inst_id"), "inst_id")
		if second {
			return pj.account(path, row, err, pj.tags[pj.key(id)].used, "inst_id")
		}
		if err != nil {
			return pj.ji.RejectRow(path, *row, err)
		}
		k := pj.key(id)
		if t := pj.tags[k]; t.workload == "" {
			if w := strings.TrimSpace(row.Fields[c.at("workload")]); w != "" {
				t.workload = strings.Clone(w) // the row's text is not kept
			}
			pj.tags[k] = t
		}
		return nil
	})
}

// readTasks loads the task table (first pass) or, once the jobs are
// written, accounts for its rows like readTags (second pass).
func (pj *paiJoin) readTasks(path string, second bool) error {
	c := pj.taskCols
	return pj.eachRow(path, c, second, func(row *CSVRow) error {
		name, task, dur, finished, err := parsePAITask(row, c)
		if second {
			return pj.account(path, row, err, pj.tasks[pj.key(name)].used, "job_name")
		}
		if err != nil {
			return pj.ji.RejectRow(path, *row, err)
		}
		k := pj.key(name)
		jt := pj.tasks[k]
		if jt.n == 0 {
			jt.first = task
		} else {
			jt.more = append(jt.more, task)
		}
		jt.n++
		if finished && (!jt.finished || dur > jt.durS) {
			jt.durS, jt.finished = dur, true
		}
		pj.tasks[k] = jt
		return nil
	})
}

// paiRole maps a task_name to a task role.
func paiRole(taskName string) string {
	n := strings.ToLower(taskName)
	switch {
	case n == "ps":
		return RolePS
	case strings.Contains(n, "worker"):
		return RoleWorker
	}
	return RoleOther
}

func parsePAITask(row *CSVRow, c paiColumns) (jobName string, t Task, durS float64, finished bool, err error) {
	if jobName, err = idField(row, c.at("job_name"), "job_name"); err != nil {
		return
	}
	inst, err := row.Count(c.at("inst_num"), "inst_num", 1, math.MaxInt32)
	if err != nil {
		return
	}
	start, hasStart, err := optTime(row, c.at("start_time"), "start_time")
	if err != nil {
		return
	}
	end, hasEnd, err := optTime(row, c.at("end_time"), "end_time")
	if err != nil {
		return
	}
	if hasStart && hasEnd {
		if end < start {
			err = &BadField{Field: "end_time", Reason: fmt.Sprintf("end %v before start %v", end, start)}
			return
		}
		durS, finished = end-start, true
	}
	cpu, err := optRequest(row, c.at("plan_cpu"), "plan_cpu")
	if err != nil {
		return
	}
	mem, err := optRequest(row, c.at("plan_mem"), "plan_mem")
	if err != nil {
		return
	}
	gpu, err := optRequest(row, c.at("plan_gpu"), "plan_gpu")
	if err != nil {
		return
	}
	t = Task{Role: paiRole(strings.TrimSpace(row.Fields[c.at("task_name")])), Instances: int32(inst),
		CPU: cpu / 100, GPU: gpu / 100, MemGiB: mem * PAIMemGiBPerGB}
	return
}

// readJobs streams the job table, writing each job that joins its tasks.
func (pj *paiJoin) readJobs(path string) error {
	c := pj.jobCols
	var tasks []Task
	return pj.eachRow(path, c, false, func(row *CSVRow) error {
		name, err := idField(row, c.at("job_name"), "job_name")
		if err != nil {
			return pj.ji.RejectRow(path, *row, err)
		}
		id, err := idField(row, c.at("inst_id"), "inst_id")
		if err != nil {
			return pj.ji.RejectRow(path, *row, err)
		}
		submit, err := row.Float(c.at("start_time"), "start_time")
		if err != nil {
			return pj.ji.RejectRow(path, *row, err)
		}
		k := pj.key(name)
		jt := pj.tasks[k]
		switch {
		case jt.n == 0:
			return pj.ji.RejectRow(path, *row, &BadField{Field: "job_name", Reason: "no task rows for this job_name"})
		case jt.used:
			return pj.ji.RejectRow(path, *row, &BadField{Field: "job_name", Reason: "an earlier job row already took this job_name's tasks"})
		case !jt.finished:
			return pj.ji.RejectRow(path, *row, &BadField{Field: "job_name", Reason: "no finished task (none has both start_time and end_time)"})
		}
		tasks = append(append(tasks[:0], jt.first), jt.more...)
		j := Job{JobID: id, SubmitS: submit, DurationS: jt.durS,
			User: strings.TrimSpace(row.Fields[c.at("user")]), Status: strings.TrimSpace(row.Fields[c.at("status")]), Tasks: tasks}
		ik := pj.key(id)
		tag, tagged := pj.tags[ik]
		j.Model = tag.workload
		if ok, err := pj.ji.AcceptRow(path, *row, &j); !ok || err != nil {
			// Quarantined (implausible, or a repeated inst_id): its
			// tasks and tag stay unused, and the second pass says so.
			return err
		}
		// Joined: the tasks' memory can go; used tells the second pass.
		pj.tasks[k] = paiJobTasks{n: jt.n, used: true}
		if tagged && !tag.used {
			tag.used = true
			pj.tags[ik] = tag
		}
		return nil
	})
}
