package stages

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
)

// IngestSpec names one real trace the run ingests: a registered reader
// and its inputs (files or directories, relative to data_dir unless
// absolute).
type IngestSpec struct {
	Source string   `mapstructure:"source" yaml:"source" json:"source"`
	Inputs []string `mapstructure:"inputs" yaml:"inputs" json:"inputs"`
}

// IngestDir is the run directory's folder for the tables of source.
func IngestDir(source string) string { return "datasets/" + source }

// ingestConfig is what an ingest stage's outputs depend on besides its
// inputs' contents (which the runner hashes): where the inputs live is
// left out so that moving the data directory re-uses the cache.
type ingestConfig struct {
	Source    string  `json:"source"`
	IntervalS float64 `json:"interval_s"`
}

// Ingest is the stage that reads one real trace with its registered
// reader into datasets/<source>/: jobs.parquet (or arrivals.parquet and
// job_events.parquet for google-2011), cluster.parquet where the inputs
// hold a node or machine list, and quarantine.parquet, with the reader's
// accounting checked (read = accepted + quarantined) and logged.
func Ingest(spec IngestSpec, inputs []string, intervalS float64) pipeline.Stage {
	outs := ingestOutputs(spec.Source, inputs)
	cfg := ingestConfig{Source: spec.Source, IntervalS: intervalS}
	return &pipeline.Func{
		StageName: "ingest-" + spec.Source, StageVersion: stageVersion, In: inputs, Out: outs, Cfg: cfg,
		Fn: func(ctx context.Context, env *pipeline.Env) error {
			r, err := datasets.Lookup(spec.Source)
			if err != nil {
				return err
			}
			paths := make([]string, len(inputs))
			for i, in := range inputs {
				paths[i] = env.Input(in)
			}
			for _, o := range outs {
				env.Output(o)
			}
			bar := env.Bar("bytes", 0)
			defer bar.Done()
			req := datasets.Request{Inputs: paths, OutDir: filepath.Dir(env.Output(outs[0])),
				Meta: datasets.FileMeta{Source: spec.Source, ConfigHash: env.ConfigHash}, IntervalS: intervalS,
				Progress: func(done, _ int64) { bar.Set(done) }}
			rep, err := r.Ingest(ctx, req)
			if err != nil {
				return err
			}
			if err := rep.Total.Check(); err != nil {
				return err
			}
			env.Log.Info("ingested", "read", rep.Total.Read, "accepted", rep.Total.Accepted, "quarantined", rep.Total.Quarantined)
			if len(rep.Outputs) != len(outs) {
				return fmt.Errorf("reader %s wrote %d tables, the stage declared %d (%v)", spec.Source, len(rep.Outputs), len(outs), outs)
			}
			return nil
		},
	}
}

// ingestOutputs lists the tables a reader writes for these inputs, as
// its registration declares them (datasets.TablesOf): a directory stands
// for its files.
func ingestOutputs(source string, inputs []string) []string {
	dir := IngestDir(source)
	var names []string
	for _, in := range inputs {
		names = append(names, filepath.Base(in))
		if ents, err := os.ReadDir(in); err == nil { // a directory stands for its files
			for _, e := range ents {
				names = append(names, e.Name())
			}
		}
	}
	tables := sourceTables(source, names)
	tables = append(tables, datasets.QuarantineFile)
	for i, t := range tables {
		tables[i] = path.Join(dir, t)
	}
	return tables
}

// sourceTables are the tables the reader of source writes for input files
// named names (datasets.TablesOf), but the quarantine; a source no reader
// is registered under (Validate refuses it) writes a jobs table.
func sourceTables(source string, names []string) []string {
	r, err := datasets.Lookup(source)
	if err != nil {
		return []string{datasets.JobsFile}
	}
	return datasets.TablesOf(r, names)
}
