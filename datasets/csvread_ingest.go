package datasets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/schedlab/schedlab/pipeline"
)

// JobsBatchRows is the number of jobs per Arrow record batch an ingest
// sends to the Parquet writer.
const JobsBatchRows = 1024

// JobsIngest is one ingest that produces the jobs table: a parser accepts
// jobs and rejects rows through it; accepted jobs travel in record batches
// of JobsSchema over a bounded channel (pipeline.Flow) to the Parquet
// writer, rejected rows to the quarantine table, and every row is counted
// against its file. Memory stays at a few batches whatever the input size.
// Its methods are for the parse function only (one goroutine).
type JobsIngest struct {
	ctx    context.Context
	req    Request
	source string
	out    chan<- arrow.Record
	jb     *JobsBuilder
	q      *Quarantine
	report *Report

	total, done int64 // input bytes, for Request.Progress
	other       int64 // rows accepted into tables other than jobs
}

// IngestJobs runs parse as the source of a flow whose sink writes
// req.OutDir/jobs.parquet, with req.OutDir/quarantine.parquet beside it,
// and returns the report. files are the inputs parse will read (after
// ExpandInputs): their sizes are the progress total and each gets a line in
// the report even when it holds no rows. On error nothing is left in
// req.OutDir by this ingest, except tables that parse itself committed.
func IngestJobs(ctx context.Context, req Request, source string, files []string, parse func(*JobsIngest) error) (*Report, error) {
	if err := os.MkdirAll(req.OutDir, 0o755); err != nil {
		return nil, err
	}
	ji := &JobsIngest{req: req, source: source, report: &Report{Source: source, PerFile: map[string]Accounting{}}}
	for _, f := range files {
		ji.report.PerFile[f] = Accounting{}
		if st, err := os.Stat(f); err == nil {
			ji.total += st.Size()
		}
	}
	q, err := NewQuarantine(req, source)
	if err != nil {
		return nil, err
	}
	defer q.Abort()
	ji.q = q
	meta := FileMeta{Source: source, ConfigHash: req.Meta.ConfigHash}
	var jobsRows int64
	var committed bool
	err = pipeline.Flow(ctx,
		func(ctx context.Context, out chan<- arrow.Record) error {
			ji.ctx, ji.out = ctx, out
			ji.jb = NewJobsBuilder(memory.DefaultAllocator)
			defer ji.jb.Release()
			if err := parse(ji); err != nil {
				return err
			}
			return ji.flush()
		}, nil,
		func(ctx context.Context, in <-chan arrow.Record) error {
			n, err := writeJobsRowGroups(ctx, req.OutPath(JobsFile), meta, in)
			jobsRows, committed = n, err == nil
			return err
		})
	if err != nil {
		// The sink commits when its input closes, which a failing
		// source also does: take back what it wrote.
		if committed {
			os.Remove(req.OutPath(JobsFile))
		}
		return nil, err
	}
	qo, err := q.Close()
	if err != nil {
		return nil, err
	}
	r := ji.report
	r.Outputs = append([]Output{{Table: "jobs", Path: req.OutPath(JobsFile), Rows: jobsRows}}, r.Outputs...)
	r.Outputs = append(r.Outputs, qo)
	for _, f := range r.Files() {
		r.Total.Add(r.PerFile[f])
	}
	if err := r.Total.Check(); err != nil {
		return nil, err
	}
	if r.Total.Accepted-ji.other != jobsRows {
		return nil, fmt.Errorf("datasets: %s: accepted %d jobs but wrote %d", source, r.Total.Accepted, jobsRows)
	}
	return r, nil
}

// JobsRowGroupRows is the number of jobs per Parquet row group an ingest
// writes. parquet-go holds the open row group in memory, so one row group
// for the whole table (what WriteJobsFrom writes) would make memory grow
// with the input; closing one every JobsRowGroupRows rows bounds it.
const JobsRowGroupRows = 64 << 10

// writeJobsRowGroups is WriteJobsFrom with a row group closed every
// JobsRowGroupRows rows.
func writeJobsRowGroups(ctx context.Context, path string, meta FileMeta, in <-chan arrow.Record) (int64, error) {
	w, err := CreateParquet[Job](path, meta)
	if err != nil {
		return 0, err
	}
	defer w.Abort()
	var buf []Job
	var inGroup int64
	for {
		rec, ok, err := pipeline.Recv(ctx, in)
		if err != nil {
			return 0, err
		}
		if !ok {
			break
		}
		buf, err = JobsFromRecord(buf[:0], rec)
		rec.Release()
		if err != nil {
			return 0, err
		}
		if err := w.Write(buf); err != nil {
			return 0, err
		}
		if inGroup += int64(len(buf)); inGroup >= JobsRowGroupRows {
			if err := w.w.Flush(); err != nil {
				return 0, fmt.Errorf("write %s: %w", path, err)
			}
			inGroup = 0
		}
	}
	n := w.Rows()
	return n, w.Close()
}

// Context is the flow's context: cancelled when the ingest fails or is
// cancelled.
func (ji *JobsIngest) Context() context.Context { return ji.ctx }

// Request is the ingest's request.
func (ji *JobsIngest) Request() Request { return ji.req }

// Accept adds one job (j.Source is set to the ingest's source) read from
// file.
func (ji *JobsIngest) Accept(file string, j *Job) error {
	j.Source = ji.source
	ji.jb.Append(j)
	ji.count(file, 1, 0)
	if ji.jb.Len() >= JobsBatchRows {
		return ji.flush()
	}
	return nil
}

// AcceptOther counts a row of file that entered a table other than jobs
// (for example a node of the cluster table).
func (ji *JobsIngest) AcceptOther(file string) {
	ji.count(file, 1, 0)
	ji.other++
}

// Reject quarantines one row of file.
func (ji *JobsIngest) Reject(file string, line int64, field, reason, raw string) error {
	ji.count(file, 0, 1)
	return ji.q.Reject(file, line, field, reason, raw)
}

// RejectRow quarantines row with the reason in err (a *BadField names the
// field).
func (ji *JobsIngest) RejectRow(file string, row CSVRow, err error) error {
	var bf *BadField
	field, reason := "", err.Error()
	if errors.As(err, &bf) {
		field, reason = bf.Field, bf.Reason
	}
	return ji.Reject(file, row.Line, field, reason, row.Raw)
}

// AddOutput lists a further table the parser wrote in the report.
func (ji *JobsIngest) AddOutput(o Output) { ji.report.Outputs = append(ji.report.Outputs, o) }

// Progress reports that n more input bytes were consumed.
func (ji *JobsIngest) Progress(n int64) {
	ji.done += n
	if ji.req.Progress != nil {
		ji.req.Progress(ji.done, ji.total)
	}
}

func (ji *JobsIngest) count(file string, acc, quar int64) {
	a := ji.report.PerFile[file]
	a.Read++
	a.Accepted += acc
	a.Quarantined += quar
	ji.report.PerFile[file] = a
}

func (ji *JobsIngest) flush() error {
	if ji.jb.Len() == 0 {
		return nil
	}
	return pipeline.SendRecord(ji.ctx, ji.out, ji.jb.NewRecord())
}

// progressEvery is how many bytes a CSV loop reads between progress calls.
const progressEvery = 256 << 10

// EachRow reads every row of c, calling fn for each row that split into
// fields and quarantining the others, and reports progress as it goes. It
// stops at the first error fn returns, or when the ingest is cancelled.
func (ji *JobsIngest) EachRow(c *CSVFile, fn func(row CSVRow) error) error {
	var reported int64
	defer func() { ji.Progress(c.Offset() - reported) }()
	for {
		row, err := c.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var bf *BadField
		switch {
		case errors.As(err, &bf):
			err = ji.RejectRow(c.Path(), row, err)
		case err != nil:
			return err
		default:
			err = fn(row)
		}
		if err != nil {
			return err
		}
		if c.Offset()-reported >= progressEvery {
			if err := ji.ctx.Err(); err != nil {
				return context.Cause(ji.ctx)
			}
			ji.Progress(c.Offset() - reported)
			reported = c.Offset()
		}
	}
}
