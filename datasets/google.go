package datasets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/klauspost/compress/gzip"
	"github.com/parquet-go/parquet-go"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/sourcegraph/conc/pool"
)

// The Google cluster trace 2011 (ClusterData2011_2) job_events table: CSV
// without a header, usually as 500 gzipped parts part-NNNNN-of-00500.csv.gz,
// eight fields a row (see GoogleJobEvent).
//
// The trace clock is in microseconds. The observation window starts at
// 600 s; the trace writes 0 for an event that happened before the window
// (3,986 SUBMITs of jobs already queued when tracing began) and 2^63−1 for
// one after it. Both kinds of row are kept in job_events.parquet with the
// timestamp as written; neither is an in-window SUBMIT, so neither counts in
// arrivals.parquet. Nor does a timestamp between 0 and 600 s, which the
// trace does not use.
const (
	// GoogleWindowStartUS is the first timestamp of the trace window.
	GoogleWindowStartUS int64 = 600_000_000
	// GoogleAfterWindowUS marks an event after the trace window.
	GoogleAfterWindowUS int64 = math.MaxInt64
	// GoogleMaxTimestampUS bounds the other timestamps: a year after the
	// window opens (the trace covers 29 days). A later one, short of
	// 2^63−1, is a corrupt row.
	GoogleMaxTimestampUS int64 = GoogleWindowStartUS + 366*24*3600*1_000_000
	// GoogleMaxJobID bounds job_id (≥ 0; the trace's reach 6.5e9): 2^53,
	// beyond which a job id would not survive a float64 (JSON, DuckDB's
	// DOUBLE) unchanged.
	GoogleMaxJobID int64 = 1 << 53
)

// Google 2011 job event types (the event_type column).
const (
	GoogleSubmit int32 = iota
	GoogleSchedule
	GoogleEvict
	GoogleFail
	GoogleFinish
	GoogleKill
	GoogleLost
	GoogleUpdatePending
	GoogleUpdateRunning
)

// GoogleJobEvent is one row of job_events.parquet: one line of a Google 2011
// job_events part, column for column. A field the trace leaves empty is null
// in Parquet: MissingInfo is nil, and an empty User, JobName or
// LogicalJobName is written as null (and reads back as "").
type GoogleJobEvent struct {
	// TimestampUS is DELTA_BINARY_PACKED: the trace is in timestamp
	// order, so the deltas are small and pack into a few bits each, where
	// PLAIN spends 8 bytes a row before compression.
	TimestampUS int64 `parquet:"timestamp_us,delta" json:"timestamp_us"` // trace clock, µs; 0 before the window, 2^63−1 after
	// MissingInfo is set when the trace marks the record as synthesised
	// from incomplete data (values 0 and 1 occur); nil when empty.
	MissingInfo     *int32 `parquet:"missing_info,optional" json:"missing_info"`
	JobID           int64  `parquet:"job_id" json:"job_id"`
	EventType       int32  `parquet:"event_type" json:"event_type"`                           // GoogleSubmit ... GoogleUpdateRunning
	User            string `parquet:"user,optional,dict" json:"user"`                         // hashed
	SchedulingClass int32  `parquet:"scheduling_class" json:"scheduling_class"`               // 0 (least) to 3 (most latency-sensitive)
	JobName         string `parquet:"job_name,optional,dict" json:"job_name"`                 // hashed
	LogicalJobName  string `parquet:"logical_job_name,optional,dict" json:"logical_job_name"` // hashed
}

// Arrival is one row of arrivals.parquet: the number of jobs submitted in
// one interval. Rows are dense (an interval without submissions has Jobs 0)
// and run from interval 0 to the last one with a submission.
type Arrival struct {
	Interval int64   `parquet:"interval" json:"interval"` // 0-based bin index
	StartS   float64 `parquet:"start_s" json:"start_s"`   // bin start, seconds from the start of the trace window
	Jobs     int64   `parquet:"jobs" json:"jobs"`
}

// Google2011Reader ingests Google 2011 job_events parts (google-2011).
//
// Inputs are part files or directories; a directory stands for its *.csv.gz
// and *.csv files in name order. A file whose content starts with the gzip
// magic is decompressed; a *.gz file without it is an error; anything else
// is read as plain CSV. Parts are decoded Workers at a time, and their rows
// are written in input order, so the output is byte-identical for any
// Workers and GOMAXPROCS.
//
// A part whose first line that is not blank does not have eight
// comma-separated fields is not job_events (task_events has 13,
// machine_events 6): an *InputError wrapping ErrFormat stops the ingest. A
// UTF-8 byte-order mark at the start of a part is skipped.
//
// Outputs: job_events.parquet (GoogleJobEvent, every accepted row),
// arrivals.parquet (Arrival: in-window SUBMITs, event_type 0 with
// 600 s ≤ timestamp < 2^63−1, counted per req.Interval() bin of
// (timestamp − 600 s)), and quarantine.parquet, naming the field, for a row
// outside these plausible ranges:
//
//	timestamp         integer µs: 0, 2^63−1, or in [0, GoogleMaxTimestampUS]
//	                  (a year after the window opens)
//	missing_info      empty, 0 or 1
//	job_id            integer in [0, 2^53]
//	event_type        integer in 0..8
//	user              any text (valid UTF-8, as every string field)
//	scheduling_class  integer in 0..3
//	job_name, logical_job_name  any text
//
// and for a row with other than eight fields, bytes that are not UTF-8, an
// event already read (the same job_id, event_type and timestamp: a job's
// rows share its id, a duplicated row repeats all three), or an in-window
// SUBMIT whose bin would be googleMaxBins or later.
//
// Memory is bounded whatever the input size: the chunks in flight, about
// (Workers + 1) × (googleChunkQueue + 2) × googleChunkBytes of text plus
// their rows, and the job_events row group being built (at most
// googleRowGroupRows rows with its dictionaries); arrivals add 8 bytes per
// bin, and the duplicate check 16 bytes per event (googleSeen).
type Google2011Reader struct {
	// Workers is the number of parts decoded at once; 0 means GOMAXPROCS,
	// at most 8.
	Workers int
}

func init() { Register(Google2011Reader{}) }

// Source implements Reader.
func (Google2011Reader) Source() string { return SourceGoogle2011 }

// Tables: an arrivals table and the job events, no jobs table.
func (Google2011Reader) Tables([]string) []string { return []string{ArrivalsFile, JobEventsFile} }

// InputPatterns implements PerFileReader: a part's rows depend on no other
// part (a repeat of an earlier part's event is found through
// Request.Prior).
func (Google2011Reader) InputPatterns() []string { return []string{"*.csv.gz", "*.csv"} }

// PartitionTable implements PerFileReader.
func (Google2011Reader) PartitionTable() string { return "job_events" }

// Describe implements Reader.
func (Google2011Reader) Describe() string {
	return "Google cluster trace 2011 job_events parts (CSV, gzipped) → arrivals (SUBMITs per interval), job_events, quarantine"
}

const (
	// googleChunkBytes is how much decompressed text one chunk of rows
	// covers: large enough to amortise channel hand-offs, small enough that
	// the chunks in flight stay a few MiB. It also bounds one line: a
	// longer one means the file is not job_events text.
	googleChunkBytes = 1 << 20
	// googleChunkQueue is how many decoded chunks of one part may wait for
	// the writer.
	googleChunkQueue = 2
	// googleRowGroupRows bounds a job_events row group, and with it the
	// writer's column buffers.
	googleRowGroupRows = 256 << 10
	// googleMaxBins bounds arrivals.parquet (and the memory of its dense
	// bins): a SUBMIT in a later bin, 240 years into the trace at 30
	// minutes a bin, is quarantined rather than binned.
	googleMaxBins = 1 << 22
)

// Ingest implements Reader.
func (g Google2011Reader) Ingest(ctx context.Context, req Request) (*Report, error) {
	files, err := ExpandInputs(req.Inputs, g.InputPatterns()...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SourceGoogle2011, err)
	}
	if iv := req.IntervalS; iv < 0 || math.IsNaN(iv) || math.IsInf(iv, 0) {
		// 0 is the zero Request's default (1800 s); a negative or
		// non-finite length is a mistake, not a default.
		return nil, fmt.Errorf("datasets: google-2011: arrivals interval %g s: must be positive and finite", iv)
	}
	binUS := int64(math.Round(req.Interval() * 1e6))
	if binUS <= 0 {
		return nil, fmt.Errorf("datasets: google-2011: interval %g s is shorter than the trace's microsecond clock", req.Interval())
	}
	var total int64
	sizes := make([]int64, len(files))
	for i, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return nil, &InputError{File: f, Err: err}
		}
		sizes[i] = st.Size()
		total += st.Size()
	}
	workers := g.Workers
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), 8)
	}
	meta := FileMeta{Source: SourceGoogle2011, ConfigHash: req.Meta.ConfigHash}

	events, err := createParquetWith[GoogleJobEvent](req.OutPath(JobEventsFile), meta, parquet.MaxRowsPerRowGroup(googleRowGroupRows))
	if err != nil {
		return nil, err
	}
	defer events.Abort()
	q, err := NewQuarantine(req, SourceGoogle2011)
	if err != nil {
		return nil, err
	}
	defer q.Abort()

	rep := &Report{Source: SourceGoogle2011, PerFile: make(map[string]Accounting, len(files))}
	var bins []int64
	var done int64
	var seen googleSeen
	write := func(part int, c *googleChunk) error {
		file := files[part]
		rep.CrossDuplicates += seen.dedup(c, req.Prior)
		if err := events.Write(c.rows); err != nil {
			return err
		}
		for _, r := range c.rejects {
			if err := q.Reject(file, r.line, r.field, r.reason, r.raw); err != nil {
				return err
			}
		}
		for _, b := range c.bins {
			if b >= int64(len(bins)) {
				bins = append(bins, make([]int64, b+1-int64(len(bins)))...)
			}
			bins[b]++
		}
		acc := rep.PerFile[file]
		acc.Add(Accounting{Read: c.read, Accepted: int64(len(c.rows)), Quarantined: int64(len(c.rejects))})
		rep.PerFile[file] = acc
		if c.last {
			done += sizes[part]
			if req.Progress != nil {
				req.Progress(done, total)
			}
		}
		return nil
	}
	if err := decodeOrdered(ctx, files, workers, binUS, write); err != nil {
		return nil, err
	}
	for _, f := range rep.Files() {
		rep.Total.Add(rep.PerFile[f])
	}
	if err := rep.Total.Check(); err != nil {
		return nil, err
	}

	arrivals := make([]Arrival, len(bins))
	for i, n := range bins {
		arrivals[i] = Arrival{Interval: int64(i), StartS: float64(int64(i)*binUS) / 1e6, Jobs: n}
	}
	// Each table commits on its own; should a later one fail, the earlier
	// go again, so that a failed ingest leaves no table behind.
	nEvents := events.Rows()
	if err := events.Close(); err != nil {
		return nil, err
	}
	if err := WriteParquet(req.OutPath(ArrivalsFile), meta, arrivals); err != nil {
		os.Remove(req.OutPath(JobEventsFile))
		return nil, err
	}
	qo, err := q.Close()
	if err != nil {
		os.Remove(req.OutPath(JobEventsFile))
		os.Remove(req.OutPath(ArrivalsFile))
		return nil, err
	}
	rep.Outputs = []Output{
		{Table: "arrivals", Path: req.OutPath(ArrivalsFile), Rows: int64(len(arrivals))},
		{Table: "job_events", Path: req.OutPath(JobEventsFile), Rows: nEvents},
		qo,
	}
	return rep, nil
}

// googleSeen holds the events accepted so far, to quarantine a repeat. A
// job's events legitimately share its id (SUBMIT, SCHEDULE, FINISH, and a
// resubmission after an EVICT); the same event type of the same job at the
// same microsecond twice is a duplicated row.
//
// The trace is in timestamp order (all 2,012,242 rows), so a repeat of an
// event in order has the timestamp of the latest one: only that run of
// equal timestamps is searched (through a map once it is long, as the
// 3,986 rows at 0 are). Every event is still kept, 16 bytes each in blocks
// (about 32 MiB for the full trace), for the one case that needs them: a
// row earlier than the latest turns the history into a map of all events,
// about 40 bytes each, from then on.
type googleSeen struct {
	hist   [][]googleEventKey          // in order, in blocks of googleSeenBlock
	n      int                         // events in hist
	latest int64                       // timestamp of the last event in hist
	run    []uint64                    // jobEvent of the events at latest, while short
	runSet map[uint64]struct{}         // the same once the run is long
	all    map[googleEventKey]struct{} // every event, once out of order
}

// googleEventKey identifies an event: its timestamp and jobEvent.
type googleEventKey struct {
	ts       int64
	jobEvent uint64 // job_id<<4 | event_type: job_id ≤ 2^53 and event_type ≤ 8 fit
}

const (
	googleSeenBlock = 64 << 10
	// googleRunScan is the run length beyond which a run is searched
	// through a map instead of scanned.
	googleRunScan = 32
)

// add records k and reports whether it was recorded before.
func (s *googleSeen) add(k googleEventKey) (dup bool) {
	if s.all != nil {
		if _, dup := s.all[k]; dup {
			return true
		}
		s.all[k] = struct{}{}
		return false
	}
	switch {
	case s.n == 0 || k.ts > s.latest:
		s.latest, s.run, s.runSet = k.ts, s.run[:0], nil
	case k.ts == s.latest:
		if s.runSet != nil {
			if _, dup := s.runSet[k.jobEvent]; dup {
				return true
			}
			s.runSet[k.jobEvent] = struct{}{}
			break
		}
		if slices.Contains(s.run, k.jobEvent) {
			return true
		}
		if len(s.run) >= googleRunScan {
			s.runSet = make(map[uint64]struct{}, 2*len(s.run))
			for _, e := range s.run {
				s.runSet[e] = struct{}{}
			}
			s.runSet[k.jobEvent] = struct{}{}
		}
	default: // out of timestamp order
		s.all = make(map[googleEventKey]struct{}, s.n+1)
		for _, b := range s.hist {
			for _, e := range b {
				s.all[e] = struct{}{}
			}
		}
		s.hist, s.run, s.runSet = nil, nil, nil
		return s.add(k)
	}
	if s.runSet == nil {
		s.run = append(s.run, k.jobEvent)
	}
	if len(s.hist) == 0 || len(s.hist[len(s.hist)-1]) == googleSeenBlock {
		s.hist = append(s.hist, make([]googleEventKey, 0, googleSeenBlock))
	}
	last := &s.hist[len(s.hist)-1]
	*last = append(*last, k)
	s.n++
	return false
}

// dedup moves the events of c seen before, in c, an earlier chunk or an
// earlier partition (prior, which may be nil), from c.rows to c.rejects,
// dropping their arrivals bins, and returns how many repeated prior. Rows
// are moved down only after a first repeat, so that a chunk without one
// costs one add a row.
func (s *googleSeen) dedup(c *googleChunk, prior *PriorKeys) (cross int64) {
	var lines []googleRowLine // located on the first repeat only
	kept, keptBins, bin := 0, 0, 0
	for i := range c.rows {
		ev := &c.rows[i]
		inWindow := ev.EventType == GoogleSubmit && ev.TimestampUS >= GoogleWindowStartUS && ev.TimestampUS != GoogleAfterWindowUS
		k := googleEventKey{ts: ev.TimestampUS, jobEvent: uint64(ev.JobID)<<4 | uint64(ev.EventType)}
		part, earlier := prior.event(k)
		if !earlier && !s.add(k) {
			if kept != i {
				c.rows[kept] = *ev
			}
			kept++
			if inWindow {
				c.bins[keptBins] = c.bins[bin]
				keptBins++
				bin++
			}
			continue
		}
		if inWindow {
			bin++
		}
		if lines == nil {
			lines = c.rowLines()
		}
		reason := fmt.Sprintf("duplicate event: job %d, event_type %d at %d µs already read", ev.JobID, ev.EventType, ev.TimestampUS)
		if earlier {
			cross++
			reason = fmt.Sprintf("duplicate event: job %d, event_type %d at %d µs already in partition %s", ev.JobID, ev.EventType, ev.TimestampUS, part)
		}
		c.rejects = append(c.rejects, googleReject{line: lines[i].line, field: googleColumns[2], raw: string(lines[i].text), reason: reason})
	}
	c.rows, c.bins = c.rows[:kept], c.bins[:keptBins]
	return cross
}

// googleRowLine is where an accepted row of a chunk came from.
type googleRowLine struct {
	line int64
	text []byte
}

// rowLines locates c.rows in c.text: the lines parse did not reject, in
// order.
func (c *googleChunk) rowLines() []googleRowLine {
	out := make([]googleRowLine, 0, len(c.rows))
	text, line, r := c.text, c.first, 0
	for len(text) > 0 {
		var row []byte
		row, text, _ = bytes.Cut(text, newline)
		line++
		for r < len(c.rejects) && c.rejects[r].line < line {
			r++
		}
		if r < len(c.rejects) && c.rejects[r].line == line {
			continue
		}
		out = append(out, googleRowLine{line: line, text: bytes.TrimSuffix(row, []byte{'\r'})})
	}
	return out
}

// createParquetWith is CreateParquet with writer options added to the
// project's defaults.
func createParquetWith[T any](path string, meta FileMeta, extra ...parquet.WriterOption) (*ParquetWriter[T], error) {
	f, err := pipeline.CreateAtomic(path)
	if err != nil {
		return nil, err
	}
	return &ParquetWriter[T]{f: f, w: parquet.NewGenericWriter[T](f, append(meta.options(), extra...)...)}, nil
}

// googleChunk is the decoded rows of about googleChunkBytes of one part.
// Its rows' strings point into text, so the chunk is recycled only after
// its rows have been written (parquet-go copies what it is given).
type googleChunk struct {
	text    []byte
	rows    []GoogleJobEvent
	rejects []googleReject
	bins    []int64 // arrivals bin of each in-window SUBMIT
	read    int64
	first   int64 // lines of the part before this chunk
	last    bool  // the part's final chunk
}

type googleReject struct {
	line               int64
	field, reason, raw string
}

var googleChunks = sync.Pool{New: func() any { return &googleChunk{text: make([]byte, 0, googleChunkBytes)} }}

func (c *googleChunk) reset() {
	c.text, c.rows, c.rejects, c.bins = c.text[:0], c.rows[:0], c.rejects[:0], c.bins[:0]
	c.read, c.first, c.last = 0, 0, false
}

// decodeOrdered decodes files with workers goroutines and hands every chunk
// to write, one at a time, in file order then line order. Part i+workers is
// not started before part i's chunks are being written, so at most
// workers parts are in flight, each with at most googleChunkQueue chunks
// waiting.
func decodeOrdered(ctx context.Context, files []string, workers int, binUS int64, write func(part int, c *googleChunk) error) error {
	type task struct {
		part int
		out  chan *googleChunk
	}
	// A panic must stop the others too, or they would wait for ever on the
	// goroutine that died; conc re-raises it from Wait.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopOnPanic := func() {
		if r := recover(); r != nil {
			cancel(fmt.Errorf("datasets: google-2011: panic: %v", r))
			panic(r)
		}
	}
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError()
	order := make(chan task, workers)
	tasks := make(chan task)
	p.Go(func(ctx context.Context) error {
		defer stopOnPanic()
		defer close(order)
		defer close(tasks)
		for i := range files {
			t := task{part: i, out: make(chan *googleChunk, googleChunkQueue)}
			if err := pipeline.Send(ctx, order, t); err != nil {
				return err
			}
			if err := pipeline.Send(ctx, tasks, t); err != nil {
				return err
			}
		}
		return nil
	})
	for range workers {
		p.Go(func(ctx context.Context) error {
			defer stopOnPanic()
			var d googleDecoder
			for {
				t, ok, err := pipeline.Recv(ctx, tasks)
				if err != nil || !ok {
					return err
				}
				if err := d.decodeTo(ctx, files[t.part], binUS, t.out); err != nil {
					return err
				}
			}
		})
	}
	p.Go(func(ctx context.Context) error {
		defer stopOnPanic()
		for {
			t, ok, err := pipeline.Recv(ctx, order)
			if err != nil || !ok {
				return err
			}
			for {
				c, ok, err := pipeline.Recv(ctx, t.out)
				if err != nil {
					return err
				}
				if !ok {
					break
				}
				err = write(t.part, c)
				c.reset()
				googleChunks.Put(c)
				if err != nil {
					return err
				}
			}
		}
	})
	return p.Wait()
}

// googleDecoder turns one part's bytes into chunks. It is reused across the
// parts one worker decodes.
type googleDecoder struct {
	gz   *gzip.Reader
	file []byte
}

// decodeTo decodes file into out and closes out.
func (d *googleDecoder) decodeTo(ctx context.Context, file string, binUS int64, out chan<- *googleChunk) error {
	defer close(out)
	return d.decode(ctx, file, binUS, func(c *googleChunk) error {
		return pipeline.Send(ctx, out, c)
	})
}

// decode reads file and calls emit with each chunk; the chunk's last field
// marks the final one.
func (d *googleDecoder) decode(ctx context.Context, file string, binUS int64, emit func(*googleChunk) error) error {
	f, _, err := pipeline.OpenRegular(file) // a FIFO would block os.Open for good
	if err != nil {
		return &InputError{File: file, Err: err}
	}
	defer f.Close()
	return d.decodeFrom(ctx, file, f, binUS, emit)
}

// decodeFrom is decode with the content of file coming from in.
func (d *googleDecoder) decodeFrom(ctx context.Context, file string, in io.Reader, binUS int64, emit func(*googleChunk) error) error {
	br := bufReader{r: in}
	var r io.Reader = &br
	magic, err := br.peek(2)
	if err != nil {
		return &InputError{File: file, Err: err}
	}
	switch {
	case len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		if d.gz == nil {
			d.gz, err = gzip.NewReader(&br)
		} else {
			err = d.gz.Reset(&br)
		}
		if err != nil {
			return &InputError{File: file, Err: fmt.Errorf("%w: gzip: %v", ErrFormat, err)}
		}
		r = d.gz
	case strings.HasSuffix(file, ".gz"):
		return &InputError{File: file, Err: fmt.Errorf("%w: not gzip data (no gzip magic)", ErrFormat)}
	}

	var line int64 // lines parsed so far in this part
	var carry []byte
	eof, start, seen := false, true, false
	for !eof {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		c := googleChunks.Get().(*googleChunk)
		c.text = append(c.text[:0], carry...)
		// Fill the chunk's text up to its capacity or the end of input.
		for len(c.text) < cap(c.text) {
			n, err := r.Read(c.text[len(c.text):cap(c.text)])
			c.text = c.text[:len(c.text)+n]
			if errors.Is(err, io.EOF) {
				eof = true
				break
			}
			if err != nil {
				// The lines read whole so far, this chunk's included,
				// locate the break.
				complete := line + int64(bytes.Count(c.text, []byte{'\n'}))
				googleChunks.Put(c)
				return &InputError{File: file, Line: complete + 1, Err: fmt.Errorf("%w: reading after %d complete lines: %v", ErrFormat, complete, err)}
			}
		}
		if start {
			start = false
			if bytes.HasPrefix(c.text, utf8BOM) {
				c.text = c.text[:copy(c.text, c.text[len(utf8BOM):])]
			}
		}
		end := len(c.text)
		if !eof {
			nl := bytes.LastIndexByte(c.text, '\n')
			if nl < 0 {
				// The chunk is full and holds no line end.
				googleChunks.Put(c)
				return &InputError{File: file, Line: line + 1, Err: fmt.Errorf("%w: line longer than %d bytes", ErrFormat, googleChunkBytes)}
			}
			end = nl + 1
		}
		carry = append(carry[:0], c.text[end:]...)
		c.text = c.text[:end]
		c.first = line
		if !seen {
			// The first line that is not blank tells whether the part
			// is job_events at all: another table (task_events has 13
			// fields, machine_events 6) stops the ingest, as the other
			// readers stop at a file that is not theirs.
			if ln, reason, found := googleFirstLine(c.text); found {
				seen = true
				if reason != "" {
					googleChunks.Put(c)
					return &InputError{File: file, Line: line + ln, Err: fmt.Errorf("%w: not a Google 2011 job_events part: %s", ErrFormat, reason)}
				}
			}
		}
		line = c.parse(line, binUS)
		c.last = eof
		if err := emit(c); err != nil {
			return err
		}
	}
	return nil
}

// newline ends a line of a part's text.
var newline = []byte{'\n'}

// utf8BOM is the UTF-8 byte-order mark some tools put before text.
var utf8BOM = []byte("\xef\xbb\xbf")

// googleFirstLine finds the first line of text that is not blank and says
// why it is not a job_events row by its shape (reason "" when it has eight
// fields); found is false when text holds only blank lines.
func googleFirstLine(text []byte) (line int64, reason string, found bool) {
	for len(text) > 0 {
		var row []byte
		row, text, _ = bytes.Cut(text, newline)
		line++
		row = bytes.TrimSuffix(row, []byte{'\r'})
		if len(bytes.TrimSpace(row)) == 0 {
			continue
		}
		if n := bytes.Count(row, []byte{','}) + 1; n != len(googleColumns) {
			return line, fmt.Sprintf("its first line has %d comma-separated fields, want %d", n, len(googleColumns)), true
		}
		return line, "", true
	}
	return 0, "", false
}

// parse decodes every complete line of c.text; first is the number of lines
// before it in the part. It returns the number after it.
func (c *googleChunk) parse(first int64, binUS int64) int64 {
	text := c.text
	line := first
	// One pass over the whole chunk is cheaper than one per row; only a
	// chunk with bytes that are not UTF-8 has its rows checked one by one.
	valid := utf8.Valid(text)
	for len(text) > 0 {
		var row []byte
		row, text, _ = bytes.Cut(text, newline)
		line++
		if n := len(row); n > 0 && row[n-1] == '\r' {
			row = row[:n-1]
		}
		// A blank line is no row (as in every reader): skipped, not
		// quarantined, so a part of a few kilobytes of newlines cannot
		// make millions of quarantine rows.
		if len(row) == 0 || ((row[0] == ' ' || row[0] == '\t') && len(bytes.TrimSpace(row)) == 0) {
			continue
		}
		c.read++
		ev, field, reason := parseGoogleEvent(row)
		if reason == "" && !valid && !utf8.Valid(row) {
			field, reason = googleBadUTF8(row)
		}
		if reason != "" {
			c.rejects = append(c.rejects, googleReject{line: line, field: field, reason: reason, raw: string(row)})
			continue
		}
		if ev.EventType == GoogleSubmit && ev.TimestampUS >= GoogleWindowStartUS && ev.TimestampUS != GoogleAfterWindowUS {
			bin := (ev.TimestampUS - GoogleWindowStartUS) / binUS
			if bin >= googleMaxBins {
				c.rejects = append(c.rejects, googleReject{line: line, field: googleColumns[0], raw: string(row),
					reason: fmt.Sprintf("SUBMIT at %d µs falls in arrivals bin %d, beyond the last of %d", ev.TimestampUS, bin, googleMaxBins)})
				continue
			}
			c.bins = append(c.bins, bin)
		}
		c.rows = append(c.rows, ev)
	}
	return line
}

// Column names of a job_events row, for quarantine reasons.
var googleColumns = [8]string{"timestamp", "missing_info", "job_id", "event_type", "user", "scheduling_class", "job_name", "logical_job_name"}

// googleBadUTF8 names the first field of row that is not valid UTF-8.
func googleBadUTF8(row []byte) (field, reason string) {
	for i, f := range bytes.Split(row, []byte{','}) {
		if utf8.Valid(f) {
			continue
		}
		name := fmt.Sprintf("column %d", i+1)
		if i < len(googleColumns) {
			name = googleColumns[i]
		}
		return name, "invalid UTF-8"
	}
	return "", "invalid UTF-8"
}

// missingInfoValues lends MissingInfo a shared pointer for the values the
// trace uses, so that a row costs no allocation.
var missingInfoValues = [2]int32{0, 1}

// parseGoogleEvent decodes one line. On a bad line it returns the field at
// fault and the reason; the strings of ev point into row.
func parseGoogleEvent(row []byte) (ev GoogleJobEvent, field, reason string) {
	var f [8][]byte
	rest := row
	for i := 0; i < 7; i++ {
		j := bytes.IndexByte(rest, ',')
		if j < 0 {
			return ev, "", fmt.Sprintf("%d fields, want 8", i+1)
		}
		f[i], rest = rest[:j], rest[j+1:]
	}
	if j := bytes.IndexByte(rest, ','); j >= 0 {
		return ev, "", fmt.Sprintf("%d fields, want 8", 9+bytes.Count(rest[j+1:], []byte{','}))
	}
	f[7] = rest

	var ok bool
	if ev.TimestampUS, ok = parseInt64(f[0]); !ok {
		return ev, googleColumns[0], fmt.Sprintf("timestamp %q is not an integer", f[0])
	}
	if ev.TimestampUS < 0 {
		return ev, googleColumns[0], fmt.Sprintf("timestamp %d is negative", ev.TimestampUS)
	}
	if ev.TimestampUS > GoogleMaxTimestampUS && ev.TimestampUS != GoogleAfterWindowUS {
		return ev, googleColumns[0], fmt.Sprintf("timestamp %d µs is beyond the plausible %d (a year after the window opens) and is not 2^63−1", ev.TimestampUS, GoogleMaxTimestampUS)
	}
	if len(f[1]) > 0 {
		v, ok := parseInt64(f[1])
		if !ok || (v != 0 && v != 1) {
			return ev, googleColumns[1], fmt.Sprintf("missing_info %q is not 0, 1 or empty", f[1])
		}
		ev.MissingInfo = &missingInfoValues[v]
	}
	if ev.JobID, ok = parseInt64(f[2]); !ok {
		return ev, googleColumns[2], fmt.Sprintf("job_id %q is not an integer", f[2])
	}
	if ev.JobID < 0 || ev.JobID > GoogleMaxJobID {
		return ev, googleColumns[2], fmt.Sprintf("job_id %d outside the plausible range [0, 2^53]", ev.JobID)
	}
	et, ok := parseInt64(f[3])
	if !ok || et < 0 || et > int64(GoogleUpdateRunning) {
		return ev, googleColumns[3], fmt.Sprintf("event_type %q is not an integer in 0..8", f[3])
	}
	ev.EventType = int32(et)
	sc, ok := parseInt64(f[5])
	if !ok || sc < 0 || sc > 3 {
		return ev, googleColumns[5], fmt.Sprintf("scheduling_class %q is not an integer in 0..3", f[5])
	}
	ev.SchedulingClass = int32(sc)
	ev.User = bytesString(f[4])
	ev.JobName = bytesString(f[6])
	ev.LogicalJobName = bytesString(f[7])
	return ev, "", ""
}

// bytesString views b as a string without copying. The caller keeps b
// unchanged for as long as the string is used: here, until the chunk
// holding b has been written.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// parseInt64 parses an optionally signed decimal integer, rejecting empty
// input, other characters and overflow.
func parseInt64(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var u uint64
	for _, ch := range b {
		d := ch - '0'
		if d > 9 {
			return 0, false
		}
		u = u*10 + uint64(d)
	}
	// 19 digits fit in a uint64, so only the int64 range needs checking.
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// bufReader reads a file in large blocks and can peek at its start.
type bufReader struct {
	r   io.Reader
	buf []byte
}

func (b *bufReader) peek(n int) ([]byte, error) {
	b.buf = make([]byte, n)
	m, err := io.ReadFull(b.r, b.buf)
	b.buf = b.buf[:m]
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil
	}
	return b.buf, err
}

func (b *bufReader) Read(p []byte) (int, error) {
	if len(b.buf) > 0 {
		n := copy(p, b.buf)
		b.buf = b.buf[n:]
		return n, nil
	}
	return b.r.Read(p)
}
