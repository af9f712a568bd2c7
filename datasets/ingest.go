package datasets

import (
	"context"
	"errors"
	"fmt"
	"github.com/schedlab/schedlab/pipeline"
	"path/filepath"
	"sort"
	"sync"
)

// Source names accepted by schedlab ingest (DESIGN.md §7).
const (
	SourcePAIV2020     = "pai-v2020"
	SourcePAISim       = "pai-sim"
	SourceAlibabaV2023 = "alibaba-v2023"
	SourceElasticFlow  = "elasticflow"
	SourcePhillyGavel  = "philly-gavel"
	SourceGoogle2011   = "google-2011"
	SourceTiresias     = "tiresias"
)

// File names an ingest writes into its output directory.
const (
	JobsFile       = "jobs.parquet"
	ArrivalsFile   = "arrivals.parquet"
	JobEventsFile  = "job_events.parquet"
	QuarantineFile = "quarantine.parquet"
	ClusterFile    = "cluster.parquet"
)

// ErrFormat is wrapped by every located input error: the input is not in
// the format its reader expects (a missing column, not CSV at all, a
// truncated gzip). Row-level problems are quarantined instead.
var ErrFormat = errors.New("input not in the expected format")

// InputError locates an input problem that stops a whole file: which file,
// which line (1-based; 0 when the file as a whole is bad), which field.
type InputError struct {
	File  string
	Line  int64
	Field string
	Err   error
}

func (e *InputError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, e.Line)
	}
	if e.Field != "" {
		loc += ": field " + e.Field
	}
	return loc + ": " + e.Err.Error()
}

func (e *InputError) Unwrap() error { return e.Err }

// Rejected is one quarantined input row: where it was and why it was not
// accepted. Every row a reader reads is either accepted into its table or
// becomes one Rejected row; none is dropped silently.
type Rejected struct {
	Source string `parquet:"source" json:"source"`
	File   string `parquet:"file" json:"file"`
	Line   int64  `parquet:"line" json:"line"` // 1-based line in File
	Field  string `parquet:"field" json:"field"`
	Reason string `parquet:"reason" json:"reason"`
	Raw    string `parquet:"raw" json:"raw"` // the row's text, cut to MaxRawBytes
}

// MaxRawBytes bounds Rejected.Raw so that a file of garbage cannot blow up
// the quarantine table.
const MaxRawBytes = 1024

// Accounting counts an ingest's rows: Read = Accepted + Quarantined, always.
// Rows that are read and deliberately not turned into output rows for a
// documented reason (for example Google events outside the trace window)
// still count as Accepted when they enter some output table, and as
// Quarantined, with that reason, when they enter none.
type Accounting struct {
	Read        int64 `json:"read"`
	Accepted    int64 `json:"accepted"`
	Quarantined int64 `json:"quarantined"`
}

// Add sums b into a.
func (a *Accounting) Add(b Accounting) {
	a.Read += b.Read
	a.Accepted += b.Accepted
	a.Quarantined += b.Quarantined
}

// Check reports a violation of Read = Accepted + Quarantined.
func (a Accounting) Check() error {
	if a.Read != a.Accepted+a.Quarantined {
		return fmt.Errorf("datasets: accounting broken: read %d ≠ accepted %d + quarantined %d", a.Read, a.Accepted, a.Quarantined)
	}
	return nil
}

// Request is one ingest: raw input files (or directories, as the source
// documents) in, canonical tables out.
type Request struct {
	Inputs []string
	OutDir string
	Meta   FileMeta
	// IntervalS is the arrivals bin length in seconds (google-2011); 0
	// means 1800.
	IntervalS float64
	// Progress, when set, is called with input bytes consumed so far and
	// the total (0 when unknown).
	Progress func(done, total int64)
	// Prior, when set, holds the keys (job ids; Google events) of the
	// partitions before this one in a partitioned dataset (IngestDataset):
	// a row repeating one is quarantined, naming that partition, and
	// counted in Report.CrossDuplicates.
	Prior *PriorKeys
	// Executor, if set, reads the files of a partitioned ingest
	// (IngestDataset) as tasks, one per file (shard.go); the dataset is
	// the same bytes as without.
	Executor pipeline.Executor
}

// Interval is the arrivals bin length in seconds.
func (r *Request) Interval() float64 {
	if r.IntervalS <= 0 {
		return 1800
	}
	return r.IntervalS
}

// Output is one table an ingest wrote.
type Output struct {
	Table string `json:"table"` // jobs, arrivals, job_events, quarantine, cluster
	Path  string `json:"path"`
	Rows  int64  `json:"rows"`
}

// Report is what an ingest did: per input file and in total, how many rows
// were read, accepted and quarantined, and which tables it wrote.
type Report struct {
	Source  string                `json:"source"`
	Total   Accounting            `json:"total"`
	PerFile map[string]Accounting `json:"per_file"`
	Outputs []Output              `json:"outputs"`
	// CrossDuplicates is how many of Total.Quarantined repeat a key of
	// Request.Prior.
	CrossDuplicates int64 `json:"cross_duplicates,omitempty"`
}

// Files is the report's input files in sorted order.
func (r *Report) Files() []string {
	fs := make([]string, 0, len(r.PerFile))
	for f := range r.PerFile {
		fs = append(fs, f)
	}
	sort.Strings(fs)
	return fs
}

// Reader ingests one source's raw files into canonical Parquet tables. An
// implementation streams (memory bounded independently of input size),
// writes every table atomically into req.OutDir, always writes
// QuarantineFile (empty when nothing was rejected), and returns a Report
// whose Total passes Accounting.Check. A file it cannot read at all is an
// error wrapping *InputError; a bad row is quarantined.
type Reader interface {
	// Source is the name under which the reader is registered.
	Source() string
	// Describe is one line for `schedlab datasets list`: the format read
	// and the tables written.
	Describe() string
	Ingest(ctx context.Context, req Request) (*Report, error)
}

// Tabler is a Reader that says which tables (file names in req.OutDir,
// besides QuarantineFile) an ingest of files named names writes, so that
// a DAG declares a source's outputs from its registration, before it
// runs. A Reader that is not a Tabler writes JobsFile.
type Tabler interface {
	Tables(names []string) []string
}

// TablesOf is what r writes for input files named names, but
// QuarantineFile: r's Tables, or JobsFile.
func TablesOf(r Reader, names []string) []string {
	if t, ok := r.(Tabler); ok {
		return t.Tables(names)
	}
	return []string{JobsFile}
}

var (
	registryMu sync.Mutex
	registry   = map[string]Reader{}
)

// Register makes r available under r.Source(). It panics on a duplicate
// name: that is a programming error.
func Register(r Reader) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[r.Source()]; dup {
		panic("datasets: reader " + r.Source() + " registered twice")
	}
	registry[r.Source()] = r
}

// Lookup returns the reader registered under source.
func Lookup(source string) (Reader, error) {
	registryMu.Lock()
	defer registryMu.Unlock()
	r, ok := registry[source]
	if !ok {
		return nil, fmt.Errorf("datasets: unknown source %q (known: %v)", source, sourcesLocked())
	}
	return r, nil
}

// Sources lists the registered source names, sorted.
func Sources() []string {
	registryMu.Lock()
	defer registryMu.Unlock()
	return sourcesLocked()
}

func sourcesLocked() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// OutPath is the path of table file name inside req.OutDir.
func (r *Request) OutPath(name string) string { return filepath.Join(r.OutDir, name) }

// Quarantine streams rejected rows into req.OutDir/quarantine.parquet. It
// buffers at most quarantineBatch rows, so a file of garbage costs disk, not
// memory.
type Quarantine struct {
	source string
	w      *ParquetWriter[Rejected]
	buf    []Rejected
}

const quarantineBatch = 1024

// NewQuarantine starts the quarantine table of one ingest.
func NewQuarantine(req Request, source string) (*Quarantine, error) {
	w, err := CreateParquet[Rejected](req.OutPath(QuarantineFile), FileMeta{Source: source, ConfigHash: req.Meta.ConfigHash})
	if err != nil {
		return nil, err
	}
	return &Quarantine{source: source, w: w}, nil
}

// Reject records one bad row. raw is cut to MaxRawBytes; bytes that are
// not UTF-8, in raw or elsewhere, are escaped (ValidText), so that the
// table stays readable.
func (q *Quarantine) Reject(file string, line int64, field, reason, raw string) error {
	q.buf = append(q.buf, Rejected{Source: q.source, File: ValidText(file, 0), Line: line,
		Field: ValidText(field, 0), Reason: ValidText(reason, 0), Raw: ValidText(raw, MaxRawBytes)})
	if len(q.buf) >= quarantineBatch {
		return q.flush()
	}
	return nil
}

func (q *Quarantine) flush() error {
	if len(q.buf) == 0 {
		return nil
	}
	err := q.w.Write(q.buf)
	q.buf = q.buf[:0]
	return err
}

// Rows is the number of rows rejected so far.
func (q *Quarantine) Rows() int64 { return q.w.Rows() + int64(len(q.buf)) }

// Close writes the table into place and describes it.
func (q *Quarantine) Close() (Output, error) {
	if err := q.flush(); err != nil {
		q.w.Abort()
		return Output{}, err
	}
	n := q.w.Rows()
	if err := q.w.Close(); err != nil {
		return Output{}, err
	}
	return Output{Table: "quarantine", Path: q.w.f.Path(), Rows: n}, nil
}

// Abort discards the table; safe after Close.
func (q *Quarantine) Abort() { q.w.Abort() }
