package datasets

import (
	"context"
	"math"
	"path/filepath"
	"strings"
)

// ElasticFlowReader reads the Microsoft ITP (Philly's successor) job traces
// published with ElasticFlow (microsoft/elasticflow-traces): one CSV per
// cluster, header job_id,submission_time,duration,num_gpu, columns found by
// name; times in seconds from the collection start; num_gpu a whole number.
//
// Job ids are unique only within a cluster, so each is prefixed with the
// file's base name: cluster04.csv's job "abc" becomes "cluster04/abc". A job
// is one worker task of num_gpu instances of one GPU each (the traces say
// nothing of how a job spreads over servers, nor of CPU or memory: both 0).
// A job asking for 0 GPUs is kept (instances 0 would be meaningless, so it
// becomes one instance of 0 GPUs). The traces hold no status, user or
// workload type. Bad rows (a field that is not a number, a negative time,
// duration or GPU count, a fractional GPU count) are quarantined.
//
// Every job is then checked against the plausible ranges of CheckJob
// (MaxSubmitS, MaxDurationS, ...) and for a job id already accepted; a job
// that fails is quarantined naming the field.
//
// Inputs: files, or directories standing for their cluster*.csv files.
type ElasticFlowReader struct{}

func init() { Register(ElasticFlowReader{}) }

// Source implements Reader.
func (ElasticFlowReader) Source() string { return SourceElasticFlow }

// InputPatterns implements PerFileReader: each file's jobs stand alone
// (ids are checked across files through Request.Prior).
func (ElasticFlowReader) InputPatterns() []string { return []string{"cluster*.csv"} }

// PartitionTable implements PerFileReader.
func (ElasticFlowReader) PartitionTable() string { return "jobs" }

// Describe implements Reader.
func (ElasticFlowReader) Describe() string {
	return "Microsoft ITP cluster*.csv from ElasticFlow (job_id, submission_time, duration, num_gpu) → jobs, quarantine"
}

var elasticFlowColumns = []string{"job_id", "submission_time", "duration", "num_gpu"}

// Ingest implements Reader.
func (ElasticFlowReader) Ingest(ctx context.Context, req Request) (*Report, error) {
	return IngestJobFiles(ctx, req, SourceElasticFlow, ElasticFlowReader{}.InputPatterns(), ingestElasticFlowFile)
}

func ingestElasticFlowFile(ji *JobsIngest, path string) error {
	c, err := OpenCSV(path, CSVOptions{})
	if err != nil {
		return err
	}
	defer c.Close()
	col, err := c.Columns(elasticFlowColumns...)
	if err != nil {
		return err
	}
	cluster := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return ji.EachJob(c, func(row *CSVRow) (Job, error) { return parseElasticFlowRow(row, col, cluster) })
}

func parseElasticFlowRow(row *CSVRow, col []int, cluster string) (Job, error) {
	id, err := row.Field(col[0], "job_id")
	if err != nil {
		return Job{}, err
	}
	if id == "" {
		return Job{}, &BadField{Field: "job_id", Reason: "empty"}
	}
	submit, err := row.NonNegative(col[1], "submission_time")
	if err != nil {
		return Job{}, err
	}
	dur, err := row.NonNegative(col[2], "duration")
	if err != nil {
		return Job{}, err
	}
	gpus, err := row.Count(col[3], "num_gpu", 0, math.MaxInt32)
	if err != nil {
		return Job{}, err
	}
	t := Task{Role: RoleWorker, Instances: int32(gpus), GPU: 1}
	if gpus == 0 {
		t = Task{Role: RoleWorker, Instances: 1}
	}
	return Job{JobID: cluster + "/" + id, SubmitS: submit, DurationS: dur, Tasks: []Task{t}}, nil
}
