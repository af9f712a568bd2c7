package datasets

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/schedlab/schedlab/pipeline"
)

// A partitioned dataset is what `schedlab ingest --partitioned` writes: one
// partition per input file, so that a refresh re-reads only the files that
// were added or changed. Its directory holds
//
//	_dataset.json              the record (Dataset): every partition's input
//	                           (path, bytes, sha256), rows read / accepted /
//	                           quarantined, and files with their sha256
//	TABLE/NAME.parquet         the partition of input NAME (TABLE is jobs, or
//	                           job_events for google-2011)
//	quarantine/NAME.parquet    the rows of NAME it quarantined
//	arrivals.parquet           google-2011: SUBMITs per interval over all
//	                           partitions
//
// so that DuckDB reads the whole table as read_parquet('DIR/TABLE/*.parquet')
// and ReadParquet reads it, in the record's order, from DIR.
const DatasetFile = "_dataset.json"

// DatasetLayout is the version of the layout above, in Dataset.Layout.
const DatasetLayout = 1

// datasetStaging names a refresh's staging directory (".dataset.tmp-N").
const datasetStaging = "dataset"

// PerFileReader is a Reader whose input files can be read one at a time
// into partitions: no file's rows depend on another's, except through the
// key check that Request.Prior carries across partitions. pai-v2020 (its
// job and task tables join) and alibaba-v2023 (pods and the node list) are
// not.
type PerFileReader interface {
	Reader
	// InputPatterns are the names a directory input stands for
	// (ExpandInputs).
	InputPatterns() []string
	// PartitionTable is the partitioned table: "jobs" or "job_events".
	PartitionTable() string
}

// Dataset is DatasetFile. Its bytes are a function of the inputs (their
// paths and contents) and the interval alone: partitions are in name
// order, whatever the order in which the files were added.
type Dataset struct {
	Layout    int     `json:"layout"`
	Source    string  `json:"source"`
	Table     string  `json:"table"`                // the partitioned table
	IntervalS float64 `json:"interval_s,omitempty"` // google-2011 arrivals bin
	// Total sums the partitions' rows.
	Total Accounting `json:"total"`
	// CrossDuplicates sums the partitions' CrossDuplicates.
	CrossDuplicates int64       `json:"cross_duplicates"`
	Partitions      []Partition `json:"partitions"`
	// Tables are the tables over all partitions (arrivals.parquet).
	Tables []ManifestTable `json:"tables"`
}

// Partition is one input file's part of a Dataset.
type Partition struct {
	Name  string      `json:"name"` // the input's base name without its extensions
	Input InputRecord `json:"input"`
	Rows  Accounting  `json:"rows"`
	// CrossDuplicates counts the rows, among Rows.Quarantined, that repeat
	// a key of an earlier partition (PriorKeys).
	CrossDuplicates int64 `json:"cross_duplicates"`
	// Files are the partition's table and its quarantine; File is relative
	// to the dataset directory.
	Files []ManifestTable `json:"files"`
}

// InputRecord identifies an input file's content.
type InputRecord struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// DatasetReport is what a refresh did.
type DatasetReport struct {
	Dataset *Dataset
	Dir     string
	// Read are the partitions whose input was read; Kept those taken
	// unchanged from the previous dataset; Removed those whose input is
	// gone. All in name order.
	Read, Kept, Removed []string
}

// partitionName is an input file's partition name: its base name without
// .gz, .csv, .trace or .parquet endings.
func partitionName(file string) string {
	n := filepath.Base(file)
	for {
		ext := filepath.Ext(n)
		switch strings.ToLower(ext) {
		case ".gz", ".csv", ".trace":
			n = strings.TrimSuffix(n, ext)
			continue
		}
		return n
	}
}

// maxNameBytes is the longest file name the file systems schedlab runs on
// take (NAME_MAX).
const maxNameBytes = 255

// partitionFile is the file name of partition name in its table's folder:
// name.parquet, or, when that would be longer than a file name may be, a
// prefix of name and a hash of the whole, so that an input named with 254
// bytes has a partition all the same.
func partitionFile(name string) string {
	if len(name)+len(".parquet") <= maxNameBytes {
		return name + ".parquet"
	}
	cut := 200
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + "~" + pipeline.HashBytes([]byte(name))[:16] + ".parquet"
}

// datasetFault, when set (in tests), is called at named points of a
// refresh; an error it returns stops the refresh there as a crash would.
var datasetFault func(point string) error

func fault(point string) error {
	if datasetFault == nil {
		return nil
	}
	return datasetFault(point)
}

// IngestDataset reads req.Inputs with r into the partitioned dataset in
// req.OutDir, re-reading only what changed since the dataset there was
// written. A partition is read again when its input is new, its path,
// size or sha256 differ from the record, the interval changed
// (google-2011), its file no longer has the sha256 recorded, or its keys
// may now repeat an earlier partition's or no longer do (it has a key of
// an earlier partition, or it had quarantined some and an earlier
// partition changed). Every other partition is kept as it is, so the
// result is byte for byte what a full ingest into an empty directory
// writes.
//
// The refresh commits as one set (the protocol of IngestInto): the read
// partitions, arrivals and DatasetFile are written into a staging
// directory ".dataset.tmp-N" in req.OutDir; a failure or cancellation
// there leaves the previous dataset as it was. Once the staging holds
// DatasetFile the refresh is complete: the old DatasetFile is removed,
// the new files are renamed in, the partitions of removed inputs deleted,
// and DatasetFile renamed in last. A crash among those renames is
// finished by the next IngestDataset; until then DIR has no DatasetFile,
// so ReadParquet refuses it rather than read a mixture.
func IngestDataset(ctx context.Context, r PerFileReader, req Request) (*DatasetReport, error) {
	dir := req.OutDir
	lock, err := pipeline.LockDir(dir, "ingest")
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	if err := checkDatasetFolders(dir); err != nil {
		return nil, err
	}
	if err := recoverDataset(dir); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err == nil {
		return nil, fmt.Errorf("ingest into %s: it holds a single-file ingest (%s); a partitioned dataset needs a directory of its own", dir, ManifestFile)
	}
	old, err := ReadDatasetRecord(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return nil, fmt.Errorf("%w\nThe record cannot be trusted, so no partition can be kept: remove it (rm %s) and ingest again, which reads every input again", err, filepath.Join(dir, DatasetFile))
	case old.Source != r.Source() || old.Table != r.PartitionTable():
		return nil, fmt.Errorf("ingest into %s: it holds a %s dataset, not %s", dir, old.Source, r.Source())
	}

	files, err := ExpandInputs(req.Inputs, r.InputPatterns()...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Source(), err)
	}
	byName := map[string]string{}
	for _, f := range files {
		n := partitionName(f)
		if prev, dup := byName[n]; dup {
			return nil, fmt.Errorf("%s and %s would both be partition %q: partitions are named after their input file", prev, f, n)
		}
		if n == "" || n[0] == '.' || n[0] == '_' {
			return nil, fmt.Errorf("%s: partition name %q must not be empty or start with '.' or '_' (hidden from readers of the directory)", f, n)
		}
		// The record is JSON, which holds UTF-8 only: a name in another
		// encoding would come back as another name (U+FFFD).
		if !utf8.ValidString(f) {
			return nil, fmt.Errorf("%q: the file name is not valid UTF-8, and %s records names in UTF-8 only: rename the file (or its folder) to a UTF-8 name and ingest again", f, DatasetFile)
		}
		byName[n] = f
	}
	ds := &Dataset{Layout: DatasetLayout, Source: r.Source(), Table: r.PartitionTable()}
	if r.Source() == SourceGoogle2011 {
		ds.IntervalS = req.Interval()
	}
	oldParts := map[string]*Partition{}
	reuseAll := old != nil && old.IntervalS == ds.IntervalS && old.Layout == DatasetLayout
	if old != nil {
		for i := range old.Partitions {
			oldParts[old.Partitions[i].Name] = &old.Partitions[i]
		}
	}
	names := make([]string, 0, len(byName)+len(oldParts))
	for n := range byName {
		names = append(names, n)
	}
	for n := range oldParts {
		if _, ok := byName[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)

	staging, err := pipeline.MkdirScratch(dir, datasetStaging)
	if err != nil {
		return nil, fmt.Errorf("ingest into %s: %w", dir, err)
	}
	// Once complete, a staging directory whose commit failed is kept for
	// the next refresh to finish, as after a crash.
	complete := false
	defer func() {
		if !complete {
			os.RemoveAll(staging)
		}
	}()
	// Every present input's record; with an executor, the inputs that
	// have no partition to keep are read at once, one task each, and
	// taken below where the keys of the partitions before allow.
	ins := map[string]InputRecord{}
	stamps := map[string]fs.FileInfo{}
	var shards []string
	for _, name := range names {
		file, present := byName[name]
		if !present {
			continue
		}
		if stamps[name], err = os.Stat(file); err != nil {
			return nil, &InputError{File: file, Err: err}
		}
		sum, size, err := pipeline.HashFile(file)
		if err != nil {
			return nil, &InputError{File: file, Err: err}
		}
		ins[name] = InputRecord{Path: file, Bytes: size, SHA256: sum}
		if op := oldParts[name]; !(reuseAll && op != nil && op.Input == ins[name]) {
			shards = append(shards, name)
		}
	}
	var sharded map[string]Partition
	if req.Executor != nil {
		if sharded, err = readShards(ctx, req.Executor, r, req, staging, shards, ins); err != nil {
			return nil, err
		}
	}
	rep := &DatasetReport{Dataset: ds, Dir: dir}
	prior := NewPriorKeys()
	var bins []int64
	var binUS int64
	if ds.IntervalS > 0 {
		binUS = int64(ds.IntervalS*1e6 + 0.5)
	}
	earlierChanged := false
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
		_, present := byName[name]
		op := oldParts[name]
		if !present {
			rep.Removed = append(rep.Removed, name)
			earlierChanged = true
			continue
		}
		in := ins[name]
		var keys *partitionKeys
		var err error
		if reuseAll && op != nil && op.Input == in && !(earlierChanged && op.CrossDuplicates > 0) {
			keys, err = keptKeys(dir, op, ds.Table)
			if err != nil {
				return nil, err
			}
			if keys != nil {
				if _, clash := prior.collides(keys); clash {
					keys = nil
				}
			}
		}
		var p Partition
		if keys != nil {
			p = *op
			rep.Kept = append(rep.Kept, name)
		} else {
			if err := fault("read " + name); err != nil {
				return nil, err
			}
			if sp, ok := sharded[name]; ok {
				// Read without the earlier partitions' keys: the same
				// bytes unless one of its keys repeats theirs.
				k, err := readPartitionKeys(filepath.Join(staging, filepath.FromSlash(sp.Files[0].File)), ds.Table)
				if err != nil {
					return nil, err
				}
				if _, clash := prior.collides(k); !clash {
					p, keys = sp, k
				}
			}
			if keys == nil {
				if p, keys, err = readPartition(ctx, r, req, staging, name, in, prior); err != nil {
					return nil, err
				}
			}
			rep.Read = append(rep.Read, name)
			earlierChanged = true
		}
		prior.add(name, keys)
		if binUS > 0 {
			bins = binSubmits(bins, keys.events, binUS)
		}
		ds.Partitions = append(ds.Partitions, p)
		ds.Total.Add(p.Rows)
		ds.CrossDuplicates += p.CrossDuplicates
	}
	if len(ds.Partitions) == 0 {
		return nil, errors.New("no input files")
	}
	// The sha256 recorded is of the file as it was before it was read: a
	// file written to since (a row edited in place during the ingest)
	// would be recorded as unchanged with other rows in its partition.
	for _, name := range rep.Read {
		if err := unchanged(byName[name], stamps[name]); err != nil {
			return nil, err
		}
	}
	if err := ds.Total.Check(); err != nil {
		return nil, err
	}
	if binUS > 0 {
		arrivals := make([]Arrival, len(bins))
		for i, n := range bins {
			arrivals[i] = Arrival{Interval: int64(i), StartS: float64(int64(i)*binUS) / 1e6, Jobs: n}
		}
		path := filepath.Join(staging, ArrivalsFile)
		if err := WriteParquet(path, FileMeta{Source: ds.Source, ConfigHash: req.Meta.ConfigHash}, arrivals); err != nil {
			return nil, err
		}
		sum, size, err := pipeline.HashFile(path)
		if err != nil {
			return nil, err
		}
		ds.Tables = []ManifestTable{{Table: "arrivals", File: ArrivalsFile, Rows: int64(len(arrivals)), SHA256: sum, Bytes: size}}
	}
	b, err := json.MarshalIndent(ds, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := pipeline.WriteFileAtomic(filepath.Join(staging, DatasetFile), append(b, '\n')); err != nil {
		return nil, fmt.Errorf("ingest into %s: %w", dir, err)
	}
	complete = true
	if err := commitDataset(dir, staging); err != nil {
		return nil, fmt.Errorf("ingest into %s: commit (the next ingest into it finishes it): %w", dir, err)
	}
	return rep, os.RemoveAll(staging)
}

// keptKeys reads the keys of a partition that may be kept, or returns nil
// when its files are not what the record says (then it is read again).
func keptKeys(dir string, p *Partition, table string) (*partitionKeys, error) {
	for _, f := range p.Files {
		path, err := pipeline.LocalPath(dir, f.File)
		if err != nil {
			return nil, err
		}
		sum, size, err := pipeline.HashFile(path)
		if err != nil || sum != f.SHA256 || size != f.Bytes {
			return nil, nil
		}
	}
	keys, err := readPartitionKeys(filepath.Join(dir, filepath.FromSlash(p.Files[0].File)), table)
	if err != nil || keys.rows() != p.Files[0].Rows {
		return nil, nil // not the rows recorded: read again
	}
	return keys, nil
}

// binSubmits counts the in-window SUBMITs of events into bins, as the
// google-2011 reader does.
func binSubmits(bins []int64, events []googleEventKey, binUS int64) []int64 {
	for _, e := range events {
		if int32(e.jobEvent&0xf) != GoogleSubmit || e.ts < GoogleWindowStartUS || e.ts == GoogleAfterWindowUS {
			continue
		}
		b := (e.ts - GoogleWindowStartUS) / binUS
		if b >= int64(len(bins)) {
			bins = append(bins, make([]int64, b+1-int64(len(bins)))...)
		}
		bins[b]++
	}
	return bins
}

// readPartition runs r over one input file into staging/TABLE/name.parquet
// and staging/quarantine/name.parquet.
func readPartition(ctx context.Context, r PerFileReader, req Request, staging, name string, in InputRecord, prior *PriorKeys) (Partition, *partitionKeys, error) {
	tmp, err := os.MkdirTemp(staging, ".read-*") // not named after the input: its name may be 255 bytes
	if err != nil {
		return Partition{}, nil, err
	}
	defer os.RemoveAll(tmp)
	preq := req
	preq.Inputs, preq.OutDir, preq.Prior, preq.Progress = []string{in.Path}, tmp, prior, nil
	rep, err := r.Ingest(ctx, preq)
	if err != nil {
		return Partition{}, nil, err
	}
	if err := rep.Total.Check(); err != nil {
		return Partition{}, nil, err
	}
	p := Partition{Name: name, Input: in, Rows: rep.Total, CrossDuplicates: rep.CrossDuplicates}
	table := r.PartitionTable()
	for _, o := range rep.Outputs {
		if o.Table != table && o.Table != "quarantine" {
			continue // arrivals: the dataset's own is built over all partitions
		}
		rel := filepath.Join(o.Table, partitionFile(name))
		if err := os.MkdirAll(filepath.Join(staging, o.Table), 0o755); err != nil {
			return Partition{}, nil, err
		}
		if err := os.Rename(o.Path, filepath.Join(staging, rel)); err != nil {
			return Partition{}, nil, err
		}
		sum, size, err := pipeline.HashFile(filepath.Join(staging, rel))
		if err != nil {
			return Partition{}, nil, err
		}
		p.Files = append(p.Files, ManifestTable{Table: o.Table, File: filepath.ToSlash(rel), Rows: o.Rows, SHA256: sum, Bytes: size})
	}
	if len(p.Files) != 2 || p.Files[0].Table != table {
		return Partition{}, nil, fmt.Errorf("datasets: reader %s wrote %v for %s, want its %s table then quarantine", r.Source(), p.Files, in.Path, table)
	}
	keys, err := readPartitionKeys(filepath.Join(staging, p.Files[0].File), table)
	if err != nil {
		return Partition{}, nil, err
	}
	return p, keys, nil
}

// commitDataset moves a complete staging directory's files into dir
// (IngestDataset). It is idempotent, so a crash anywhere in it is finished
// by running it again.
func commitDataset(dir, staging string) error {
	ds, err := ReadDatasetRecord(staging)
	if err != nil {
		return err
	}
	if err := removeStale(filepath.Join(dir, DatasetFile)); err != nil {
		return err
	}
	keep := map[string]bool{}
	var all []ManifestTable
	for _, p := range ds.Partitions {
		all = append(all, p.Files...)
	}
	all = append(all, ds.Tables...)
	for _, t := range all {
		rel := filepath.FromSlash(t.File)
		dst, err := pipeline.LocalPath(dir, t.File)
		if err != nil {
			return err
		}
		keep[rel] = true
		if err := fault("commit " + t.File); err != nil {
			return err
		}
		err = pipeline.MoveOutput(filepath.Join(staging, rel), dst)
		if errors.Is(err, fs.ErrNotExist) { // kept, or renamed before a crash
			_, err = os.Lstat(dst)
		}
		if err != nil {
			return err
		}
	}
	// Partitions of removed inputs, and arrivals of a dataset that no
	// longer has them.
	for _, sub := range datasetFolders {
		if _, err := pipeline.LocalPath(dir, sub); err != nil {
			return err
		}
		ents, err := os.ReadDir(filepath.Join(dir, sub))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		for _, e := range ents {
			rel := filepath.Join(sub, e.Name())
			if !keep[rel] && strings.HasSuffix(e.Name(), ".parquet") {
				if err := os.Remove(filepath.Join(dir, rel)); err != nil {
					return err
				}
			}
		}
		if err := syncDir(filepath.Join(dir, sub)); err != nil {
			return err
		}
	}
	if !keep[ArrivalsFile] {
		if err := removeStale(filepath.Join(dir, ArrivalsFile)); err != nil {
			return err
		}
	}
	return publishRecord(dir, staging, DatasetFile)
}

// recoverDataset finishes the commit of a killed refresh whose staging
// directory is complete (holds DatasetFile) and removes every other
// temporary in dir. The caller holds dir's lock.
func recoverDataset(dir string) error {
	return recoverStaged(dir, datasetStaging, DatasetFile, "refresh", commitDataset)
}

// datasetFolders are the folders of a dataset directory that a refresh
// writes into and removes from.
var datasetFolders = []string{"jobs", "job_events", "quarantine"}

// checkDatasetFolders refuses a dataset directory whose folders are not
// its own (a symbolic link jobs → ../elsewhere): a refresh would write and
// delete partitions there.
func checkDatasetFolders(dir string) error {
	for _, sub := range datasetFolders {
		if _, err := pipeline.LocalPath(dir, sub); err != nil {
			return fmt.Errorf("ingest into %s: %w", dir, err)
		}
	}
	return nil
}

// ReadDatasetRecord reads dir's DatasetFile: a regular file of at most
// pipeline.MaxRecordBytes that passes Dataset.Validate.
func ReadDatasetRecord(dir string) (*Dataset, error) {
	p := filepath.Join(dir, DatasetFile)
	b, err := pipeline.ReadRecord(p, 0)
	if err != nil {
		return nil, err
	}
	return ParseDatasetRecord(p, b)
}

// ParseDatasetRecord decodes and validates the DatasetFile bytes b, read
// from path (named in errors).
func ParseDatasetRecord(path string, b []byte) (*Dataset, error) {
	var ds Dataset
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ds); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = fmt.Errorf("the file ends inside its JSON (truncated): %w", err)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: more than one JSON value", path)
	}
	if ds.Layout != DatasetLayout {
		return nil, fmt.Errorf("%s: layout %d, this schedlab reads %d", path, ds.Layout, DatasetLayout)
	}
	if err := ds.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &ds, nil
}

// Validate checks what a reader of the record trusts: partitions in
// strictly increasing name order (so each once), each with its table and
// quarantine at the paths its name gives, inside the dataset; every
// count consistent (read = accepted + quarantined, a file's rows those its
// accounting says, the totals the sums of the partitions'); every sha256
// well formed.
func (ds *Dataset) Validate() error {
	switch ds.Table {
	case "jobs", "job_events":
	default:
		return fmt.Errorf("table %q: want jobs or job_events", ds.Table)
	}
	if ds.Source == "" || !(ds.IntervalS >= 0 && ds.IntervalS <= MaxDurationS) {
		return fmt.Errorf("source %q, interval_s %g: not a dataset's", ds.Source, ds.IntervalS)
	}
	files := map[string]bool{}
	file := func(what string, t ManifestTable, want string) error {
		switch {
		case t.File != want:
			return fmt.Errorf("%s: file %q, want %q", what, t.File, want)
		case files[t.File]:
			return fmt.Errorf("%s: file %q listed twice", what, t.File)
		case !pipeline.IsSHA256(t.SHA256) || t.Bytes < 0 || t.Rows < 0:
			return fmt.Errorf("%s: file %q: sha256 %q, %d bytes, %d rows: not a file's", what, t.File, t.SHA256, t.Bytes, t.Rows)
		}
		files[t.File] = true
		return nil
	}
	var total Accounting
	var cross int64
	for i, p := range ds.Partitions {
		what := fmt.Sprintf("partitions[%d] (%q)", i, p.Name)
		switch {
		case p.Name == "" || p.Name[0] == '.' || p.Name[0] == '_' || strings.ContainsAny(p.Name, "/\\\x00") || !utf8.ValidString(p.Name):
			return fmt.Errorf("%s: not a partition name", what)
		case i > 0 && p.Name <= ds.Partitions[i-1].Name:
			return fmt.Errorf("%s: partitions out of name order or listed twice (after %q)", what, ds.Partitions[i-1].Name)
		case p.Rows.Read < 0 || p.Rows.Accepted < 0 || p.Rows.Quarantined < 0 || p.CrossDuplicates < 0 || p.CrossDuplicates > p.Rows.Quarantined:
			return fmt.Errorf("%s: rows %+v, cross duplicates %d: not counts", what, p.Rows, p.CrossDuplicates)
		case p.Input.Path == "" || p.Input.Bytes < 0 || !pipeline.IsSHA256(p.Input.SHA256):
			return fmt.Errorf("%s: input %+v: not a file's", what, p.Input)
		case len(p.Files) != 2:
			return fmt.Errorf("%s: %d files, want its table and its quarantine", what, len(p.Files))
		}
		if err := p.Rows.Check(); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		for j, t := range []string{ds.Table, "quarantine"} {
			if p.Files[j].Table != t {
				return fmt.Errorf("%s: files[%d] is table %q, want %q", what, j, p.Files[j].Table, t)
			}
			if err := file(what, p.Files[j], t+"/"+partitionFile(p.Name)); err != nil {
				return err
			}
		}
		if p.Files[0].Rows != p.Rows.Accepted || p.Files[1].Rows != p.Rows.Quarantined {
			return fmt.Errorf("%s: files hold %d and %d rows, but %d accepted and %d quarantined are recorded", what, p.Files[0].Rows, p.Files[1].Rows, p.Rows.Accepted, p.Rows.Quarantined)
		}
		total.Add(p.Rows)
		cross += p.CrossDuplicates
	}
	if total != ds.Total || cross != ds.CrossDuplicates {
		return fmt.Errorf("total %+v and %d cross duplicates, but the partitions sum to %+v and %d", ds.Total, ds.CrossDuplicates, total, cross)
	}
	for i, t := range ds.Tables {
		if err := file(fmt.Sprintf("tables[%d]", i), t, ArrivalsFile); err != nil {
			return err
		}
	}
	return nil
}

// unchanged checks that file is still the file stat described before it
// was hashed and read.
func unchanged(file string, before fs.FileInfo) error {
	now, err := os.Stat(file)
	if err == nil && !pipeline.SameVersion(before, now) {
		err = fmt.Errorf("the file changed while it was read (%d bytes modified %s, now %d bytes modified %s): ingest again once nothing writes to it",
			before.Size(), before.ModTime().UTC().Format(time.RFC3339Nano), now.Size(), now.ModTime().UTC().Format(time.RFC3339Nano))
	}
	if err != nil {
		return &InputError{File: file, Err: err}
	}
	return nil
}

// IsDataset reports whether path is a partitioned dataset: a directory
// holding DatasetFile, or that file itself. dir is the dataset directory.
func IsDataset(path string) (dir string, ok bool) {
	if filepath.Base(path) == DatasetFile {
		return filepath.Dir(path), true
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, DatasetFile)); err == nil {
			return path, true
		}
	}
	return "", false
}

// readDatasetTable reads every partition of the dataset in dir, in the
// record's order, as rows of T; each file must have its recorded sha256,
// so that a dataset half-refreshed by hand is an error, not a mixture.
func readDatasetTable[T any](dir string, check *tableCheck[T]) ([]T, error) {
	ds, err := ReadDatasetRecord(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("%w\nThe dataset cannot be read until its record is rebuilt: remove it (rm %s) and ingest into %s again (schedlab ingest --partitioned), which reads every input again",
			err, filepath.Join(dir, DatasetFile), dir)
	}
	var out []T
	for _, p := range ds.Partitions {
		f := p.Files[0]
		path, err := pipeline.LocalPath(dir, f.File)
		if err != nil {
			return nil, fmt.Errorf("dataset %s: partition %s: %w", dir, p.Name, err)
		}
		sum, size, err := pipeline.HashFile(path)
		if err != nil {
			return nil, fmt.Errorf("dataset %s: partition %s: %w", dir, p.Name, err)
		}
		if sum != f.SHA256 || size != f.Bytes {
			return nil, fmt.Errorf("dataset %s: %s is not the file its %s records (sha256 %s, want %s)", dir, path, DatasetFile, sum, f.SHA256)
		}
		rows, err := readParquetFile(path, check)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	if err := check.done(); err != nil {
		return nil, err
	}
	return out, nil
}
