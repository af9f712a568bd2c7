package datasets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/pipeline"
)

// ManifestFile is the record of the table set an ingest committed into its
// output directory (IngestInto).
const ManifestFile = "ingest.json"

// tableFiles are the names any reader writes: the set an ingest replaces.
var tableFiles = []string{JobsFile, ArrivalsFile, JobEventsFile, QuarantineFile, ClusterFile}

// stagingWhat names ingest staging directories (".ingest.tmp-<digits>").
const stagingWhat = "ingest"

// Manifest is ManifestFile: what one ingest read and the tables it wrote,
// each with its sha256, so that a reader of the directory can tell which
// files belong together.
type Manifest struct {
	Source  string                `json:"source"`
	Inputs  []string              `json:"inputs"`
	Total   Accounting            `json:"total"`
	PerFile map[string]Accounting `json:"per_file"`
	Tables  []ManifestTable       `json:"tables"`
}

// ManifestTable is one committed table.
type ManifestTable struct {
	Table  string `json:"table"`
	File   string `json:"file"` // name inside the output directory
	Rows   int64  `json:"rows"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// IngestInto runs r with req and commits its tables into req.OutDir as one
// set: all of them or none. Protocol (manifest last, rolled forward after
// a crash):
//
//  1. lock req.OutDir (pipeline.LockDir): a second ingest into it is
//     refused; finish the commit a killed ingest had started (its staging
//     directory holds ManifestFile) and delete every other temporary a
//     killed writer left (pipeline.IsScratch names);
//  2. the reader writes into a staging directory ".ingest.tmp-N" inside
//     req.OutDir (same file system, so renames are atomic); a failure of
//     the reader, of a write (disk full) or a cancellation removes the
//     staging directory and leaves the previous set untouched;
//  3. ManifestFile, listing the new tables with their sha256, is written
//     into the staging directory: from here on the set is complete and a
//     crash is rolled forward by the next IngestInto;
//  4. the old ManifestFile is removed, the new tables are renamed into
//     req.OutDir, tables of the previous set that the new one lacks (say
//     cluster.parquet of another source) are removed, and ManifestFile is
//     renamed in last.
//
// So ManifestFile in req.OutDir always describes exactly the tables beside
// it, and between steps 4's renames (or after a crash there) no
// ManifestFile vouches for a mixture. The report's paths are the final ones.
func IngestInto(ctx context.Context, r Reader, req Request) (rep *Report, err error) {
	dir := req.OutDir
	lock, err := pipeline.LockDir(dir, "ingest")
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	if err := recoverIngest(dir); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, DatasetFile)); err == nil {
		return nil, fmt.Errorf("ingest into %s: it holds a partitioned dataset (%s); ingest into it with IngestDataset (schedlab ingest --partitioned)", dir, DatasetFile)
	}
	staging, err := pipeline.MkdirScratch(dir, stagingWhat)
	if err != nil {
		return nil, fmt.Errorf("ingest into %s: %w", dir, err)
	}
	defer os.RemoveAll(staging) // empty, or everything, after a commit
	sreq := req
	sreq.OutDir = staging
	rep, err = r.Ingest(ctx, sreq)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	man := Manifest{Source: rep.Source, Inputs: req.Inputs, Total: rep.Total, PerFile: rep.PerFile}
	for i, o := range rep.Outputs {
		name := filepath.Base(o.Path)
		if filepath.Dir(o.Path) != filepath.Clean(staging) {
			return nil, fmt.Errorf("datasets: reader %s wrote %s outside its output directory", r.Source(), o.Path)
		}
		sum, size, err := pipeline.HashFile(o.Path)
		if err != nil {
			return nil, fmt.Errorf("ingest into %s: %w", dir, err)
		}
		man.Tables = append(man.Tables, ManifestTable{Table: o.Table, File: name, Rows: o.Rows, SHA256: sum, Bytes: size})
		rep.Outputs[i].Path = filepath.Join(dir, name)
	}
	b, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := pipeline.WriteFileAtomic(filepath.Join(staging, ManifestFile), append(b, '\n')); err != nil {
		return nil, fmt.Errorf("ingest into %s: %w", dir, err)
	}
	if err := commitIngest(dir, staging); err != nil {
		return nil, fmt.Errorf("ingest into %s: commit: %w", dir, err)
	}
	return rep, nil
}

// commitIngest is step 4 of IngestInto: staging holds a complete set and
// its ManifestFile. It is idempotent, so a crash anywhere in it is finished
// by running it again.
func commitIngest(dir, staging string) error {
	b, err := pipeline.ReadRecord(filepath.Join(staging, ManifestFile), 0)
	if err != nil {
		return err
	}
	var man Manifest
	if err := json.Unmarshal(b, &man); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(staging, ManifestFile), err)
	}
	stale := slices.Clone(tableFiles)
	if old, err := readManifest(dir); err == nil {
		for _, t := range old.Tables {
			stale = append(stale, t.File)
		}
	}
	if err := removeStale(filepath.Join(dir, ManifestFile)); err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, t := range man.Tables {
		if !filepath.IsLocal(t.File) || strings.ContainsRune(t.File, filepath.Separator) {
			return fmt.Errorf("table file %q is not a name", t.File)
		}
		keep[t.File] = true
		err := pipeline.MoveOutput(filepath.Join(staging, t.File), filepath.Join(dir, t.File))
		if errors.Is(err, fs.ErrNotExist) { // renamed before a crash
			_, err = os.Stat(filepath.Join(dir, t.File))
		}
		if err != nil {
			return err
		}
	}
	for _, f := range stale {
		if keep[f] || !filepath.IsLocal(f) {
			continue
		}
		if err := removeStale(filepath.Join(dir, f)); err != nil {
			return err
		}
	}
	return publishRecord(dir, staging, ManifestFile)
}

// removeStale removes path; one that is not there is fine, for a commit
// runs again after a crash that may have removed it already.
func removeStale(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// publishRecord moves the staged record, the last step of a commit, into
// dir and syncs dir: once it is there, the commit is visible.
func publishRecord(dir, staging, record string) error {
	if err := pipeline.MoveOutput(filepath.Join(staging, record), filepath.Join(dir, record)); err != nil {
		return err
	}
	return syncDir(dir)
}

// recoverIngest finishes the commit of a killed ingest whose staging
// directory is complete (holds ManifestFile) and removes every other
// temporary in dir. The caller holds dir's lock.
func recoverIngest(dir string) error {
	return recoverStaged(dir, stagingWhat, ManifestFile, "ingest", commitIngest)
}

// recoverStaged finishes, with commit, every staging directory of dir
// named after what (pipeline's scratch naming) that holds marker — the
// file a set's commit renames last, so a staging directory holding it is
// complete — and then removes every other temporary in dir. noun names
// the interrupted work in errors.
func recoverStaged(dir, what, marker, noun string, commit func(dir, staging string) error) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("ingest into %s: %w", dir, err)
	}
	for _, e := range ents {
		if !e.IsDir() || !pipeline.IsScratch(e.Name()) || !strings.HasPrefix(e.Name(), "."+what+".tmp-") {
			continue
		}
		staging := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(staging, marker)); err != nil {
			continue // incomplete: removed below
		}
		if err := commit(dir, staging); err != nil {
			return fmt.Errorf("ingest into %s: finishing the commit of a killed %s (%s): %w\n"+
				"Either mend what the error names and run again, which finishes the commit, or give the %s up: remove it (rm -r %s) and ingest again, which reads again what it had read",
				dir, noun, staging, err, noun, staging)
		}
	}
	if _, err := pipeline.RemoveScratch(dir, false); err != nil {
		return fmt.Errorf("ingest into %s: %w", dir, err)
	}
	return nil
}

// readManifest reads dir's ManifestFile.
func readManifest(dir string) (*Manifest, error) {
	b, err := pipeline.ReadRecord(filepath.Join(dir, ManifestFile), 0)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	return &m, nil
}

// syncDir makes the renames into dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
