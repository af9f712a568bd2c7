package datasets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
)

// TiresiasReader reads the job traces of the Tiresias GPU-cluster simulator
// (SymbioticLab/Tiresias, simulator/: 60_job.csv and its kind): a CSV with
// header job_id,num_gpu,submit_time,iterations,model_name,duration,interval,
// columns found by name; job_id, num_gpu, submit_time and duration are
// required, model_name is kept as the job's model when present, the others
// are not read (the simulator's policies do not read them either).
//
// The simulator's own rules for these fields are kept: submit_time is a
// whole number of seconds (it reads the field as digits; "12.0" is
// accepted as 12, "12.5" is quarantined), duration is truncated to whole
// seconds as its int(float(duration)) does, and num_gpu is a whole number.
// Job ids are unique only within a trace (each counts from 0), so each is
// prefixed with the file's base name: 60_job.csv's job "3" becomes
// "60_job/3". A job is one worker task of num_gpu instances of one GPU each, no CPU or
// memory (the simulator's "count" placement counts GPUs only); a job asking
// for 0 GPUs becomes one instance of 0 GPUs. Bad rows (a field that is not
// a number, a negative value, a fractional GPU count or submit time) are
// quarantined naming the field; every job is then checked by CheckJob and
// for a repeated job id.
//
// Inputs: files, or directories standing for their *.csv files.
type TiresiasReader struct{}

func init() { Register(TiresiasReader{}) }

// Source implements Reader.
func (TiresiasReader) Source() string { return SourceTiresias }

// InputPatterns implements PerFileReader.
func (TiresiasReader) InputPatterns() []string { return []string{"*.csv"} }

// PartitionTable implements PerFileReader.
func (TiresiasReader) PartitionTable() string { return "jobs" }

// Describe implements Reader.
func (TiresiasReader) Describe() string {
	return "Tiresias simulator trace *.csv (job_id, num_gpu, submit_time, duration, model_name) → jobs, quarantine"
}

var tiresiasColumns = []string{"job_id", "num_gpu", "submit_time", "duration"}

// Ingest implements Reader.
func (TiresiasReader) Ingest(ctx context.Context, req Request) (*Report, error) {
	return IngestJobFiles(ctx, req, SourceTiresias, TiresiasReader{}.InputPatterns(), ingestTiresiasFile)
}

func ingestTiresiasFile(ji *JobsIngest, path string) error {
	c, err := OpenCSV(path, CSVOptions{})
	if err != nil {
		return err
	}
	defer c.Close()
	col, err := c.Columns(tiresiasColumns...)
	if err != nil {
		return err
	}
	trace := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	model := -1
	if c.HasColumn("model_name") {
		m, _ := c.Columns("model_name")
		model = m[0]
	}
	return ji.EachJob(c, func(row *CSVRow) (Job, error) { return parseTiresiasRow(row, col, model, trace) })
}

func parseTiresiasRow(row *CSVRow, col []int, model int, trace string) (Job, error) {
	id, err := row.Field(col[0], "job_id")
	if err != nil {
		return Job{}, err
	}
	if id = strings.TrimSpace(id); id == "" {
		return Job{}, &BadField{Field: "job_id", Reason: "empty"}
	}
	gpus, err := row.Count(col[1], "num_gpu", 0, math.MaxInt32)
	if err != nil {
		return Job{}, err
	}
	submit, err := row.Count(col[2], "submit_time", 0, 1<<53)
	if err != nil {
		return Job{}, err
	}
	dur, err := row.NonNegative(col[3], "duration")
	if err != nil {
		return Job{}, err
	}
	j := Job{JobID: trace + "/" + id, SubmitS: float64(submit), DurationS: math.Trunc(dur)}
	if model >= 0 {
		if m, err := row.Field(model, "model_name"); err == nil {
			j.Model = strings.TrimSpace(m)
		}
	}
	t := Task{Role: RoleWorker, Instances: int32(gpus), GPU: 1}
	if gpus == 0 {
		t = Task{Role: RoleWorker, Instances: 1}
	}
	j.Tasks = []Task{t}
	return j, nil
}

// TiresiasCluster is a Tiresias cluster spec: num_switch racks of
// num_node_p_switch nodes, each with num_gpu_p_node GPUs, num_cpu_p_node
// cores and mem_p_node GiB.
type TiresiasCluster struct {
	Switches       int
	NodesPerSwitch int
	GPUsPerNode    int
	CPUsPerNode    int
	MemPerNodeGiB  float64
}

// ReadTiresiasCluster reads a Tiresias cluster spec: a CSV with the header
// num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node
// (columns by name) and one data row. A missing column, a second row or a
// value that is not a positive whole number is an error naming the file,
// line and field.
func ReadTiresiasCluster(path string) (TiresiasCluster, error) {
	c, err := OpenCSV(path, CSVOptions{})
	if err != nil {
		return TiresiasCluster{}, err
	}
	defer c.Close()
	names := []string{"num_switch", "num_node_p_switch", "num_gpu_p_node", "num_cpu_p_node", "mem_p_node"}
	col, err := c.Columns(names...)
	if err != nil {
		return TiresiasCluster{}, err
	}
	var out TiresiasCluster
	rows := 0
	for {
		row, err := c.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var bad *BadField
		if errors.As(err, &bad) {
			return TiresiasCluster{}, fmt.Errorf("%s:%d: %w", path, row.Line, err)
		}
		if err != nil {
			return TiresiasCluster{}, err
		}
		rows++
		if rows > 1 {
			return TiresiasCluster{}, fmt.Errorf("%s:%d: a cluster spec has one data row", path, row.Line)
		}
		var v [5]int64
		for i, name := range names {
			n, err := row.Count(col[i], name, 1, math.MaxInt32)
			if err != nil {
				return TiresiasCluster{}, fmt.Errorf("%s:%d: %w", path, row.Line, err)
			}
			v[i] = n
		}
		out = TiresiasCluster{Switches: int(v[0]), NodesPerSwitch: int(v[1]), GPUsPerNode: int(v[2]), CPUsPerNode: int(v[3]), MemPerNodeGiB: float64(v[4])}
	}
	if rows == 0 {
		return TiresiasCluster{}, fmt.Errorf("%s: no data row (want num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node)", path)
	}
	return out, nil
}
