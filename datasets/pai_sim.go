package datasets

import (
	"context"
	"math"
)

// PAISimReader reads Alibaba's PAI simulator input format
// (cluster-trace-gpu-v2020/simulator, e.g. pai_job_duration_estimate_100K.csv
// or the 6,000-job subset operate_simulator_jobs_6000.csv): a CSV with a
// header, one row per job, columns found by name:
//
//	job_id       the job's id
//	submit_time  submission, seconds (kept as given: the subset starts at 3 s)
//	duration     run time, seconds
//	num_inst     pods (instances), a whole number ≥ 1
//	num_gpu      GPUs of the whole job
//	num_cpu      cores of the whole job
//	user         (optional) the anonymised user
//
// Each job becomes one worker task of num_inst identical instances with
// num_gpu/num_inst GPUs and num_cpu/num_inst cores each. That is how the
// upstream simulator splits a job over its pods, and it agrees exactly with
// the subset's requested_gpu_units and requested_cpu_percent columns (the
// latter, despite its name, is cores per pod), which the reader therefore
// does not need. The format has no memory, so mem_gib is 0; it has no job
// status (the simulator input holds jobs that ran) and no workload type, so
// status and model are "". Compared with the test-only readPAISim of the
// schedulers package, the interpretation is the same; what this reader adds
// is checking: a non-whole or non-positive num_inst, a negative or
// non-finite resource, submission time or duration is quarantined with its
// line and field instead of ending the run. A duration of 0 is accepted.
//
// Every job is then checked against the plausible ranges of CheckJob
// (MaxSubmitS, MaxDurationS, ...) and for a job id already accepted; a job
// that fails is quarantined naming the field.
//
// Inputs: files, or directories standing for their *.csv files.
type PAISimReader struct{}

func init() { Register(PAISimReader{}) }

// Source implements Reader.
func (PAISimReader) Source() string { return SourcePAISim }

// InputPatterns implements PerFileReader: each file's jobs stand alone
// (ids are checked across files through Request.Prior).
func (PAISimReader) InputPatterns() []string { return []string{"*.csv"} }

// PartitionTable implements PerFileReader.
func (PAISimReader) PartitionTable() string { return "jobs" }

// Describe implements Reader.
func (PAISimReader) Describe() string {
	return "Alibaba PAI simulator CSV (job_id, submit_time, duration, num_inst, num_gpu, num_cpu job totals) → jobs, quarantine"
}

var paiSimColumns = []string{"job_id", "submit_time", "duration", "num_inst", "num_gpu", "num_cpu"}

// Ingest implements Reader.
func (PAISimReader) Ingest(ctx context.Context, req Request) (*Report, error) {
	return IngestJobFiles(ctx, req, SourcePAISim, PAISimReader{}.InputPatterns(), ingestPAISimFile)
}

func ingestPAISimFile(ji *JobsIngest, path string) error {
	c, err := OpenCSV(path, CSVOptions{})
	if err != nil {
		return err
	}
	defer c.Close()
	col, err := c.Columns(paiSimColumns...)
	if err != nil {
		return err
	}
	user := -1
	if c.HasColumn("user") {
		u, _ := c.Columns("user")
		user = u[0]
	}
	return ji.EachJob(c, func(row *CSVRow) (Job, error) { return parsePAISimRow(row, col, user) })
}

func parsePAISimRow(row *CSVRow, col []int, user int) (Job, error) {
	var j Job
	id, err := row.Field(col[0], "job_id")
	if err != nil {
		return j, err
	}
	if id == "" {
		return j, &BadField{Field: "job_id", Reason: "empty"}
	}
	submit, err := row.NonNegative(col[1], "submit_time")
	if err != nil {
		return j, err
	}
	dur, err := row.NonNegative(col[2], "duration")
	if err != nil {
		return j, err
	}
	inst, err := row.Count(col[3], "num_inst", 1, math.MaxInt32)
	if err != nil {
		return j, err
	}
	gpu, err := row.NonNegative(col[4], "num_gpu")
	if err != nil {
		return j, err
	}
	cpu, err := row.NonNegative(col[5], "num_cpu")
	if err != nil {
		return j, err
	}
	j = Job{JobID: id, SubmitS: submit, DurationS: dur,
		Tasks: []Task{{Role: RoleWorker, Instances: int32(inst), GPU: gpu / float64(inst), CPU: cpu / float64(inst)}}}
	if user >= 0 && user < len(row.Fields) {
		j.User = row.Fields[user]
	}
	return j, nil
}
