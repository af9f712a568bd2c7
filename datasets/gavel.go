package datasets

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
)

// PhillyGavelReader reads the Philly-derived job traces of Gavel
// (stanford-futuredata/gavel, scheduler/traces/msr/): tab-separated, no
// header, seven fields per line:
//
//	job_type, command, num_steps_arg, needs_data_dir, total_steps,
//	arrival_time (seconds), scale_factor (GPUs)
//
// Arrival times and GPU counts come from Philly; job types were assigned by
// Gavel's authors, and the work of a job is given in training steps, not
// seconds. Each line becomes one job "<trace>/<line>" (the trace file's base
// name and the 1-based line number, so ids are unique across traces) with
// one worker task of scale_factor instances of one GPU each (CPU and memory
// unknown: 0) and model the job type without its batch size, lower-cased
// with hyphens ("ResNet-18 (batch size 64)" → "resnet-18", "LM (batch size
// 5)" → "lm"), which are the names of sim.Profiles.
//
// Duration is derived, not measured: duration_s = total_steps /
// (throughput × scale_factor), where throughput is the job type's isolated
// steps per second on one V100 from Gavel's own measurements
// (scheduler/oracle_throughputs.json, "v100" → job type → "null"; see
// gavelV100StepsPerS). Gavel generated these traces the other way round
// (steps = Philly run time × the job's throughput on a V100), so for
// single-GPU jobs (69 % of them) this recovers the run time on a V100 to the
// extent that the table matches the one used to generate the traces. For
// scale_factor > 1 we assume linear scaling, since the table holds
// single-GPU throughputs only: where scaling is sub-linear, as it usually
// is, multi-GPU durations are underestimated. A job type not in the table
// is quarantined (no duration can be given).
//
// Every job is then checked against the plausible ranges of CheckJob
// (MaxSubmitS, MaxDurationS, ...) and for a job id already accepted; a job
// that fails is quarantined naming the field.
//
// A file whose first line does not split into seven tab-separated fields is
// not a Gavel trace: an *InputError for the whole file. Later bad lines are
// quarantined. Inputs: files, or directories standing for their *.trace
// files.
type PhillyGavelReader struct{}

func init() { Register(PhillyGavelReader{}) }

// Source implements Reader.
func (PhillyGavelReader) Source() string { return SourcePhillyGavel }

// InputPatterns implements PerFileReader: each file's jobs stand alone
// (ids are checked across files through Request.Prior).
func (PhillyGavelReader) InputPatterns() []string { return []string{"*.trace"} }

// PartitionTable implements PerFileReader.
func (PhillyGavelReader) PartitionTable() string { return "jobs" }

// Describe implements Reader.
func (PhillyGavelReader) Describe() string {
	return "Gavel's Philly-derived .trace (tab-separated job_type … total_steps, arrival_time, scale_factor; duration = steps / V100 throughput) → jobs, quarantine"
}

// gavelV100StepsPerS is the isolated training throughput, steps per second
// on one NVIDIA V100, of every Gavel job type: the "null" entries of the
// "v100" table of stanford-futuredata/gavel scheduler/oracle_throughputs.json
// (rounded to 4 significant digits).
var gavelV100StepsPerS = map[string]float64{
	"ResNet-18 (batch size 16)":        77.32,
	"ResNet-18 (batch size 32)":        65.81,
	"ResNet-18 (batch size 64)":        48.88,
	"ResNet-18 (batch size 128)":       30.29,
	"ResNet-18 (batch size 256)":       16.99,
	"ResNet-50 (batch size 16)":        17.37,
	"ResNet-50 (batch size 32)":        9.921,
	"ResNet-50 (batch size 64)":        5.458,
	"ResNet-50 (batch size 128)":       2.846,
	"Transformer (batch size 16)":      12.85,
	"Transformer (batch size 32)":      12.48,
	"Transformer (batch size 64)":      9.568,
	"Transformer (batch size 128)":     5.771,
	"Transformer (batch size 256)":     1.707,
	"A3C":                              8.233,
	"LM (batch size 5)":                167.1,
	"LM (batch size 10)":               143.4,
	"LM (batch size 20)":               108.0,
	"LM (batch size 40)":               71.72,
	"LM (batch size 80)":               43.90,
	"Recommendation (batch size 512)":  0.3315,
	"Recommendation (batch size 1024)": 0.4800,
	"Recommendation (batch size 2048)": 0.5675,
	"Recommendation (batch size 4096)": 0.6244,
	"Recommendation (batch size 8192)": 0.6024,
	"CycleGAN":                         4.918,
}

// gavelFields is the number of fields of a Gavel trace line.
const gavelFields = 7

// Ingest implements Reader.
func (PhillyGavelReader) Ingest(ctx context.Context, req Request) (*Report, error) {
	return IngestJobFiles(ctx, req, SourcePhillyGavel, PhillyGavelReader{}.InputPatterns(), ingestGavelFile)
}

func ingestGavelFile(ji *JobsIngest, path string) error {
	c, err := OpenCSV(path, CSVOptions{Comma: '\t', NoHeader: true, Names: gavelColumns})
	if err != nil {
		return err
	}
	defer c.Close()
	trace := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	first := true
	return ji.EachRow(c, func(row CSVRow) error {
		if first {
			first = false
			if len(row.Fields) != gavelFields {
				return &InputError{File: path, Line: row.Line,
					Err: fmt.Errorf("not a Gavel trace: %d tab-separated fields, want %d: %w", len(row.Fields), gavelFields, ErrFormat)}
			}
		}
		j, err := parseGavelRow(&row, trace)
		if err != nil {
			return ji.RejectRow(path, row, err)
		}
		_, err = ji.AcceptRow(path, row, &j)
		return err
	})
}

// gavelColumns names a trace's fields by position.
var gavelColumns = []string{"job_type", "command", "num_steps_arg", "needs_data_dir", "total_steps", "arrival_time", "scale_factor"}

func parseGavelRow(row *CSVRow, trace string) (Job, error) {
	if len(row.Fields) != gavelFields {
		return Job{}, &BadField{Reason: fmt.Sprintf("%d tab-separated fields, want %d", len(row.Fields), gavelFields)}
	}
	jobType := strings.TrimSpace(row.Fields[0])
	thr, ok := gavelV100StepsPerS[jobType]
	if !ok {
		return Job{}, &BadField{Field: "job_type", Reason: fmt.Sprintf("unknown job type %q: no throughput to turn steps into seconds", truncate(jobType, 64))}
	}
	steps, err := row.Count(4, "total_steps", 0, math.MaxInt64)
	if err != nil {
		return Job{}, err
	}
	arrival, err := row.NonNegative(5, "arrival_time")
	if err != nil {
		return Job{}, err
	}
	gpus, err := row.Count(6, "scale_factor", 1, math.MaxInt32)
	if err != nil {
		return Job{}, err
	}
	return Job{
		JobID:     fmt.Sprintf("%s/%d", trace, row.Line),
		SubmitS:   arrival,
		DurationS: float64(steps) / (thr * float64(gpus)),
		Model:     GavelModel(jobType),
		Tasks:     []Task{{Role: RoleWorker, Instances: int32(gpus), GPU: 1}},
	}, nil
}

// GavelModel turns a Gavel job type into a model name: lower case, without
// the "(batch size N)" suffix, spaces as hyphens.
func GavelModel(jobType string) string {
	s := strings.ToLower(strings.TrimSpace(jobType))
	if i := strings.Index(s, "("); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return strings.ReplaceAll(s, " ", "-")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
