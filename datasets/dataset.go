package datasets

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

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
		return nil, err
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
	var shards []string
	for _, name := range names {
		file, present := byName[name]
		if !present {
			continue
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
		sum, size, err := pipeline.HashFile(filepath.Join(dir, f.File))
		if err != nil || sum != f.SHA256 || size != f.Bytes {
			return nil, nil
		}
	}
	return readPartitionKeys(filepath.Join(dir, p.Files[0].File), table)
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
	tmp := filepath.Join(staging, ".read-"+name)
	if err := os.Mkdir(tmp, 0o755); err != nil {
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
		rel := filepath.Join(o.Table, name+".parquet")
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
	if err := os.Remove(filepath.Join(dir, DatasetFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
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
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("dataset file %q is not inside the dataset", t.File)
		}
		keep[rel] = true
		if err := fault("commit " + t.File); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
			return err
		}
		err := os.Rename(filepath.Join(staging, rel), filepath.Join(dir, rel))
		if errors.Is(err, fs.ErrNotExist) { // kept, or renamed before a crash
			_, err = os.Stat(filepath.Join(dir, rel))
		}
		if err != nil {
			return err
		}
	}
	// Partitions of removed inputs, and arrivals of a dataset that no
	// longer has them.
	for _, sub := range []string{"jobs", "job_events", "quarantine"} {
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
		if err := os.Remove(filepath.Join(dir, ArrivalsFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if err := os.Rename(filepath.Join(staging, DatasetFile), filepath.Join(dir, DatasetFile)); err != nil {
		return err
	}
	return syncDir(dir)
}

// recoverDataset finishes the commit of a killed refresh whose staging
// directory is complete (holds DatasetFile) and removes every other
// temporary in dir. The caller holds dir's lock.
func recoverDataset(dir string) error {
	return recoverStaged(dir, datasetStaging, DatasetFile, "refresh", commitDataset)
}

// ReadDatasetRecord reads dir's DatasetFile.
func ReadDatasetRecord(dir string) (*Dataset, error) {
	b, err := os.ReadFile(filepath.Join(dir, DatasetFile))
	if err != nil {
		return nil, err
	}
	var ds Dataset
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ds); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, DatasetFile), err)
	}
	if ds.Layout != DatasetLayout {
		return nil, fmt.Errorf("%s: layout %d, this schedlab reads %d", filepath.Join(dir, DatasetFile), ds.Layout, DatasetLayout)
	}
	return &ds, nil
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
		return nil, err
	}
	var out []T
	for _, p := range ds.Partitions {
		f := p.Files[0]
		path := filepath.Join(dir, filepath.FromSlash(f.File))
		sum, size, err := pipeline.HashFile(path)
		if err != nil {
			return nil, fmt.Errorf("dataset %s: partition %s: %w", dir, p.Name, err)
		}
		if sum != f.SHA256 || size != f.Bytes {
			return nil, fmt.Errorf("dataset %s: %s is not the file its %s records (sha256 %s, want %s)", dir, path, DatasetFile, sum, f.SHA256)
		}
		rows, err := readParquetFile[T](path)
		if err != nil {
			return nil, err
		}
		if err := check.check(path, rows, 0); err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}
