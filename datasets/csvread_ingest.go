package datasets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/sourcegraph/conc/pool"
)

// JobsBatchRows is the number of jobs per batch an ingest hands to the
// Parquet writer.
const JobsBatchRows = 1024

// JobsIngest is one ingest that produces the jobs table: a parser accepts
// jobs and rejects rows through it; accepted jobs travel as rows, in
// batches of JobsBatchRows over a bounded channel, to a writer goroutine
// that encodes them into the jobs table while parsing goes on; rejected
// rows go to the quarantine table, and every row is counted against its
// file. Memory stays at a few batches plus the open row group whatever the
// input size. Its methods are for the parse function only (one goroutine).
//
// Jobs go to Parquet as the reader's rows, never through Arrow: nothing
// reads an ingest's batches but parquet-go, which takes rows, so Arrow
// records would only be built to be decoded again.
type JobsIngest struct {
	ctx    context.Context
	req    Request
	source string
	// send takes each full batch and owns it from then on: the channel
	// to the jobs writer, or in the fuzz tests a slice in memory.
	send   func([]Job) error
	batch  []Job
	tasks  []Task // backing store of batch's Tasks
	q      *Quarantine
	report *Report
	ids    *jobIDs
	nodes  *jobIDs // cluster nodes, by node list and name

	total, done int64 // input bytes, for Request.Progress
	other       int64 // rows accepted into tables other than jobs
}

// IngestJobs runs parse, writing the jobs it accepts to
// req.OutDir/jobs.parquet with req.OutDir/quarantine.parquet beside it,
// and returns the report. files are the inputs parse will read (after
// ExpandInputs): their sizes are the progress total and each gets a line in
// the report even when it holds no rows. On error nothing is left in
// req.OutDir by this ingest, except tables that parse itself committed.
func IngestJobs(ctx context.Context, req Request, source string, files []string, parse func(*JobsIngest) error) (*Report, error) {
	if err := os.MkdirAll(req.OutDir, 0o755); err != nil {
		return nil, err
	}
	ji := &JobsIngest{req: req, source: source, report: &Report{Source: source, PerFile: map[string]Accounting{}}, ids: newJobIDs()}
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
	jobs, err := CreateParquet[Job](req.OutPath(JobsFile), FileMeta{Source: source, ConfigHash: req.Meta.ConfigHash})
	if err != nil {
		return nil, err
	}
	defer jobs.Abort()
	// Parsing and Parquet encoding each take about half the CPU time, so
	// they run side by side; the writer only writes, and the table is
	// committed below once both have finished.
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError()
	batches := make(chan []Job, pipeline.BatchBuffer)
	p.Go(func(ctx context.Context) error {
		defer close(batches)
		ji.ctx = ctx
		ji.send = func(b []Job) error { return pipeline.Send(ctx, batches, b) }
		if err := parse(ji); err != nil {
			return err
		}
		return ji.flush()
	})
	p.Go(func(ctx context.Context) error {
		write := jobsRowGroups(jobs)
		for {
			b, ok, err := pipeline.Recv(ctx, batches)
			if err != nil || !ok {
				return err
			}
			if err := write(b); err != nil {
				return err
			}
		}
	})
	if err := p.Wait(); err != nil {
		return nil, err
	}
	// A parser that finished its input before it next looked at the
	// context still must not commit a cancelled ingest.
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	r := ji.report
	jobsRows := jobs.Rows()
	for _, f := range r.Files() {
		r.Total.Add(r.PerFile[f])
	}
	if err := r.Total.Check(); err != nil {
		return nil, err
	}
	if r.Total.Accepted-ji.other != jobsRows {
		return nil, fmt.Errorf("datasets: %s: accepted %d jobs but wrote %d", source, r.Total.Accepted, jobsRows)
	}
	if err := jobs.Close(); err != nil {
		return nil, err
	}
	qo, err := q.Close()
	if err != nil {
		os.Remove(req.OutPath(JobsFile))
		return nil, err
	}
	r.Outputs = append([]Output{{Table: "jobs", Path: req.OutPath(JobsFile), Rows: jobsRows}}, r.Outputs...)
	r.Outputs = append(r.Outputs, qo)
	return r, nil
}

// JobsRowGroupRows is the number of jobs per Parquet row group an ingest
// writes. parquet-go holds the open row group in memory, so one row group
// for the whole table would make memory grow with the input; closing one
// every JobsRowGroupRows rows bounds it.
const JobsRowGroupRows = 64 << 10

// jobsRowGroups returns a batch writer into w that closes a row group
// every JobsRowGroupRows rows.
func jobsRowGroups(w *ParquetWriter[Job]) func([]Job) error {
	var inGroup int64
	return func(batch []Job) error {
		if err := w.Write(batch); err != nil {
			return err
		}
		if inGroup += int64(len(batch)); inGroup >= JobsRowGroupRows {
			if err := w.w.Flush(); err != nil {
				return fmt.Errorf("write %s: %w", w.f.Path(), err)
			}
			inGroup = 0
		}
		return nil
	}
}

// Context is the ingest's context: parse should stop when it is
// cancelled.
func (ji *JobsIngest) Context() context.Context { return ji.ctx }

// Request is the ingest's request.
func (ji *JobsIngest) Request() Request { return ji.req }

// AcceptRow accepts j, read from row of file, unless it is implausible
// (CheckJob) or repeats the id of a job accepted before: then row is
// quarantined with the field and reason. ok says which happened. The
// ingest copies j, its Tasks included (j.Source is set to the ingest's
// source): the caller may reuse both.
func (ji *JobsIngest) AcceptRow(file string, row CSVRow, j *Job) (ok bool, err error) {
	if CheckJob(j) == nil {
		if part, dup := ji.req.Prior.job(j.JobID); dup {
			ji.report.CrossDuplicates++
			return false, ji.RejectRow(file, row, &BadField{Field: "job_id",
				Reason: fmt.Sprintf("duplicate job id %q: already in partition %s", truncate(j.JobID, 64), part)})
		}
	}
	if bf := ji.ids.check(file, row.Line, j); bf != nil {
		return false, ji.RejectRow(file, row, bf)
	}
	return true, ji.accept(file, j)
}

// AcceptNodeRow checks n, read from row of file, as AcceptRow checks a
// job (CheckNode, and a node already read from the same node list), and
// counts the row as accepted into the cluster table (AcceptOther) or
// quarantines it. ok says which; the caller writes n when ok.
func (ji *JobsIngest) AcceptNodeRow(file string, row CSVRow, n *ClusterNode) (ok bool, err error) {
	if ji.nodes == nil {
		ji.nodes = newJobIDs()
	}
	if bf := ji.nodes.checkNode(file, row.Line, n); bf != nil {
		return false, ji.RejectRow(file, row, bf)
	}
	ji.AcceptOther(file)
	return true, nil
}

// accept adds one checked job.
func (ji *JobsIngest) accept(file string, j *Job) error {
	j.Source = ji.source
	row := *j
	at := len(ji.tasks)
	ji.tasks = append(ji.tasks, j.Tasks...)
	row.Tasks = ji.tasks[at:len(ji.tasks):len(ji.tasks)]
	ji.batch = append(ji.batch, row)
	ji.count(file, 1, 0)
	if len(ji.batch) >= JobsBatchRows {
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

// flush hands the batch over and starts a new one: the receiver owns the
// old one.
func (ji *JobsIngest) flush() error {
	if len(ji.batch) == 0 {
		return nil
	}
	b := ji.batch
	ji.batch, ji.tasks = make([]Job, 0, JobsBatchRows), make([]Task, 0, JobsBatchRows)
	return ji.send(b)
}

// IngestJobFiles is IngestJobs over the files the request's inputs expand
// to under patterns (ExpandInputs), each handed in order to ingestFile: the
// Ingest of a reader that reads its files one by one into one jobs table.
func IngestJobFiles(ctx context.Context, req Request, source string, patterns []string, ingestFile func(ji *JobsIngest, path string) error) (*Report, error) {
	files, err := ExpandInputs(req.Inputs, patterns...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return IngestJobs(ctx, req, source, files, func(ji *JobsIngest) error {
		for _, path := range files {
			if err := ingestFile(ji, path); err != nil {
				return err
			}
		}
		return nil
	})
}

// EachJob is EachRow for a file of one job a row: parse reads a row's job;
// a row it refuses is quarantined with its error, and the job of any other
// goes to AcceptRow.
func (ji *JobsIngest) EachJob(c *CSVFile, parse func(row *CSVRow) (Job, error)) error {
	return ji.EachRow(c, func(row CSVRow) error {
		j, err := parse(&row)
		if err != nil {
			return ji.RejectRow(c.Path(), row, err)
		}
		_, err = ji.AcceptRow(c.Path(), row, &j)
		return err
	})
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
		if done, err := nextRow(c, ji.RejectRow, fn); done || err != nil {
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

// nextRow reads the next row of c and hands it to fn, or, when a field of
// it is bad, to reject with the file's path; done is true, with no error,
// at the end of the file. It is the step of every EachRow.
func nextRow(c *CSVFile, reject func(file string, row CSVRow, err error) error, fn func(row CSVRow) error) (done bool, err error) {
	row, err := c.Next()
	var bad *BadField
	switch {
	case errors.Is(err, io.EOF):
		return true, nil
	case errors.As(err, &bad):
		return false, reject(c.Path(), row, err)
	case err != nil:
		return false, err
	}
	return false, fn(row)
}
