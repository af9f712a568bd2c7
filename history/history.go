package history

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/rundiff"
)

// FileName is the name of every data file of the dataset.
const FileName = "metrics.parquet"

// Row is one cell of one run in the history: the run's key (the partition
// keys preset and revision are in the file's path, not here), then the
// cell's columns of eval/metrics.parquet. The columns are the dataset's
// own contract, fixed here rather than taken from evaluation.MetricsRow,
// so that files written by different schedlab versions stay one table.
type Row struct {
	Date       time.Time `parquet:"date,timestamp(microsecond)" json:"date"` // the run's, from its manifest (UTC)
	ConfigHash string    `parquet:"config_hash" json:"config_hash"`

	Experiment   string  `parquet:"experiment" json:"experiment"`
	Cluster      string  `parquet:"cluster" json:"cluster"`
	Workload     string  `parquet:"workload" json:"workload"`
	Scheduler    string  `parquet:"scheduler" json:"scheduler"`
	Seed         int32   `parquet:"seed" json:"seed"`
	Replicate    int32   `parquet:"replicate" json:"replicate"` // 0 for runs without replicates
	Jobs         int32   `parquet:"jobs" json:"jobs"`
	Pruned       int32   `parquet:"pruned" json:"pruned"`
	MeanJCTS     float64 `parquet:"mean_jct_s" json:"mean_jct_s"`
	P50JCTS      float64 `parquet:"p50_jct_s" json:"p50_jct_s"`
	P95JCTS      float64 `parquet:"p95_jct_s" json:"p95_jct_s"`
	MeanFeeUSD   float64 `parquet:"mean_fee_usd" json:"mean_fee_usd"`
	MeanQueueS   float64 `parquet:"mean_queue_s" json:"mean_queue_s"`
	MeanSlowdown float64 `parquet:"mean_slowdown" json:"mean_slowdown"`
	MakespanS    float64 `parquet:"makespan_s" json:"makespan_s"`
	GPUUtil      float64 `parquet:"gpu_util" json:"gpu_util"`
	Decisions    int32   `parquet:"decisions" json:"decisions"`
}

// compareRows orders a file's rows: by run (date, config hash), then by
// cell.
func compareRows(a, b *Row) int {
	return cmp.Or(a.Date.Compare(b.Date), cmp.Compare(a.ConfigHash, b.ConfigHash),
		cmp.Compare(a.Experiment, b.Experiment), cmp.Compare(a.Cluster, b.Cluster),
		cmp.Compare(a.Workload, b.Workload), cmp.Compare(a.Scheduler, b.Scheduler),
		cmp.Compare(a.Seed, b.Seed), cmp.Compare(a.Replicate, b.Replicate))
}

// Key identifies a run in the history.
type Key struct {
	Preset, Revision, ConfigHash string
	Date                         time.Time
}

func (k Key) String() string {
	return fmt.Sprintf("preset %s, revision %s, config %.12s, %s", k.Preset, k.Revision, k.ConfigHash, k.Date.Format(time.RFC3339))
}

// Added is what Add did.
type Added struct {
	Key  Key
	File string // the partition's file
	Rows int    // the run's rows, now in File
	// Replaced is the number of rows of the same run that File held
	// before; Unchanged says they were the run's rows already, so File's
	// bytes did not change.
	Replaced  int
	Unchanged bool
}

// Options adjust Add.
type Options struct {
	// Date dates a run whose manifest has none (written by a schedlab
	// from before manifests were dated); it is refused for one that has.
	Date time.Time
}

// MetricsArtifact is the run's file that Add reads.
const MetricsArtifact = evaluation.MetricsFile

// Add appends the metrics of the finished run in runDir to the history
// in dir (created if needed), replacing the rows of the same run if it
// was added before. dir is locked while its file is rewritten.
func Add(ctx context.Context, runDir, dir string, opt Options) (Added, error) {
	run, err := rundiff.OpenRun(runDir)
	if err != nil {
		return Added{}, err
	}
	key, err := runKey(run, opt)
	if err != nil {
		return Added{}, err
	}
	rows, err := readRun(run, key)
	if err != nil {
		return Added{}, err
	}
	if err := ctx.Err(); err != nil {
		return Added{}, err
	}
	lock, err := pipeline.LockDir(dir, "history add")
	if err != nil {
		return Added{}, err
	}
	defer lock.Unlock()
	// A partition folder planted as a link would lead the rewrite out of
	// the history.
	file, err := pipeline.LocalPath(dir, partitionDir(key.Preset, key.Revision)+"/"+FileName)
	if err != nil {
		return Added{}, err
	}
	res := Added{Key: key, File: file, Rows: len(rows)}
	old, err := readFile(file)
	if err != nil {
		return Added{}, err
	}
	kept := slices.DeleteFunc(old, func(r Row) bool { return r.ConfigHash == key.ConfigHash && r.Date.Equal(key.Date) })
	res.Replaced = len(old) - len(kept)
	all := append(kept, rows...)
	// Stable: cells a run repeats keep the order of the run's own file.
	slices.SortStableFunc(all, func(a, b Row) int { return compareRows(&a, &b) })
	before, _, err := pipeline.HashFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Added{}, err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return Added{}, err
	}
	meta := datasets.FileMeta{Source: "schedlab history: preset=" + key.Preset + " revision=" + key.Revision}
	if err := datasets.WriteParquet(file, meta, all); err != nil {
		return Added{}, err
	}
	after, _, err := pipeline.HashFile(file)
	if err != nil {
		return Added{}, err
	}
	res.Unchanged = before == after
	return res, nil
}

// runKey reads the run's key from its manifest.
func runKey(run *rundiff.Run, opt Options) (Key, error) {
	m := run.Manifest()
	mp := filepath.Join(run.Dir(), pipeline.ManifestFile)
	if m.Status != "ok" {
		return Key{}, fmt.Errorf("%s: the run's status is %q: only a finished run (status ok) enters the history", mp, m.Status)
	}
	var cfg struct {
		Preset string `json:"preset"`
	}
	if err := json.Unmarshal(run.Config(), &cfg); err != nil || cfg.Preset == "" {
		return Key{}, fmt.Errorf("%s: the recorded configuration names no preset (a directory of `schedlab run`, not of `schedlab eval`, is wanted)", mp)
	}
	k := Key{Preset: cfg.Preset, Revision: m.Versions.Describe(), ConfigHash: m.ConfigHash}
	switch {
	case m.Date != "" && !opt.Date.IsZero():
		return Key{}, fmt.Errorf("%s: the run is dated %s by its manifest; a date given for it is refused", mp, m.Date)
	case m.Date != "":
		d, err := time.Parse(time.RFC3339, m.Date)
		if err != nil {
			return Key{}, fmt.Errorf("%s: field date: %w", mp, err)
		}
		k.Date = d
	case opt.Date.IsZero():
		return Key{}, fmt.Errorf("%s: no date (written by a schedlab from before manifests were dated); give the run's date", mp)
	default:
		k.Date = opt.Date
	}
	// The file's resolution: a key read back from it must equal this one.
	k.Date = k.Date.UTC().Truncate(time.Microsecond)
	return k, nil
}

// readRun reads the run's cells as history rows; a run from before
// replicates (no replicate column) reads as replicate 0.
func readRun(run *rundiff.Run, key Key) ([]Row, error) {
	p, err := run.Path(MetricsArtifact)
	if err != nil {
		return nil, err
	}
	cells, err := evaluation.ReadMetrics(p)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, len(cells))
	for i, c := range cells {
		rows[i] = Row{Date: key.Date, ConfigHash: key.ConfigHash,
			Experiment: c.Experiment, Cluster: c.Cluster, Workload: c.Workload, Scheduler: c.Scheduler,
			Seed: c.Seed, Replicate: c.Replicate, Jobs: c.Jobs, Pruned: c.Pruned,
			MeanJCTS: c.MeanJCTS, P50JCTS: c.P50JCTS, P95JCTS: c.P95JCTS, MeanFeeUSD: c.MeanFeeUSD,
			MeanQueueS: c.MeanQueueS, MeanSlowdown: c.MeanSlowdown, MakespanS: c.MakespanS,
			GPUUtil: c.GPUUtil, Decisions: c.Decisions}
	}
	return rows, nil
}

// readFile reads a partition's rows; none when the file does not exist.
func readFile(file string) ([]Row, error) {
	rows, err := datasets.ReadParquet[Row](file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return rows, err
}
