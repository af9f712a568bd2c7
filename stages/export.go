package stages

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/csv"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
	"github.com/schedlab/schedlab/pipeline"
)

// ExportFormats are the formats of Export.
var ExportFormats = []string{"parquet", "csv", "md", "tex"}

// exportTables are the run's result tables that export carries, relative
// to the run directory (those present are exported; datasets stay where
// they are, they are inputs rather than results).
var exportTables = []string{EvalResults, EvalMetrics, EvalTimings, FitCoefficients}

// Export writes a run's results in one format into outDir, one file per
// table, and returns the files written (relative to outDir):
//
//   - parquet: eval/results, metrics, timings and fit/coefficients as
//     eval_results.parquet, ..., byte-for-byte copies;
//   - csv: the same tables as CSV (header row; floats in the shortest form
//     that reads back to the same value), plus every tables/*.csv;
//   - md, tex: every tables/*.md or *.tex and fit/interference.md, plus
//     all.md or all.tex holding them all (all.tex is a complete LaTeX
//     document).
//
// Every table is checked against the sha256 the directory's manifest
// records before it is copied or converted (ErrNotAsRecorded). The files
// appear together at the end, through a staging directory inside outDir:
// an export that fails leaves outDir as it was. The caller keeps others
// from writing runDir and outDir meanwhile (pipeline.LockDir). A run directory without results is an error.
func Export(ctx context.Context, runDir, format, outDir string) ([]string, error) {
	if !slices.Contains(ExportFormats, format) {
		return nil, fmt.Errorf("export: format %q is not one of %s", format, strings.Join(ExportFormats, ", "))
	}
	man, err := pipeline.ReadManifest(runDir)
	if err != nil {
		return nil, fmt.Errorf("export: %s is not a directory of schedlab run or eval (no readable %s): %w", runDir, pipeline.ManifestFile, err)
	}
	recorded := man.Artifacts()
	// Files are written into a staging directory and moved into outDir
	// together at the end, so a failure midway (a table that does not
	// verify) leaves outDir as it was.
	if _, err := pipeline.RemoveScratch(outDir, false); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	staging, err := pipeline.MkdirScratch(outDir, "export")
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	defer os.RemoveAll(staging)
	var written []string
	put := func(name string, data []byte) error {
		if err := pipeline.WriteFileAtomic(filepath.Join(staging, name), data); err != nil {
			return err
		}
		written = append(written, name)
		return nil
	}
	flat := func(rel string) string { return strings.ReplaceAll(strings.TrimSuffix(rel, ".parquet"), "/", "_") }
	switch format {
	case "parquet", "csv":
		for _, rel := range exportTables {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			src := filepath.Join(runDir, filepath.FromSlash(rel))
			if _, err := os.Stat(src); err != nil {
				continue
			}
			data, err := verified(src, rel, recorded)
			if err != nil {
				return nil, err
			}
			if format == "csv" {
				if data, err = parquetToCSV(ctx, src, data); err != nil {
					return nil, err
				}
			}
			if err := put(flat(rel)+"."+format, data); err != nil {
				return nil, err
			}
		}
		if format == "csv" {
			if err := copyTables(runDir, "tables", ".csv", put, recorded); err != nil {
				return nil, err
			}
		}
	case "md", "tex":
		var all []string
		collectAll := func(name string, data []byte) error {
			all = append(all, string(data))
			return put(name, data)
		}
		if err := copyTables(runDir, "tables", "."+format, collectAll, recorded); err != nil {
			return nil, err
		}
		if format == "md" {
			if data, err := readRunFile(runDir, FitTable, recorded); err == nil {
				if err := collectAll("interference.md", data); err != nil {
					return nil, err
				}
			}
			if err := put("all.md", []byte(strings.Join(all, "\n"))); err != nil {
				return nil, err
			}
		} else {
			doc := "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage[margin=2cm]{geometry}\n\\begin{document}\n" +
				strings.Join(all, "\n\\bigskip\n") + "\n\\end{document}\n"
			if err := put("all.tex", []byte(doc)); err != nil {
				return nil, err
			}
		}
	}
	if len(written) == 0 {
		return nil, fmt.Errorf("export: %s holds no results to export as %s", runDir, format)
	}
	if err := pipeline.CommitStaged(staging, outDir, written, ""); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return written, nil
}

// ErrNotAsRecorded is wrapped by Export's error when a table of the run
// is not the file its manifest lists (changed, truncated or replaced since
// the run wrote it), or is not listed at all.
var ErrNotAsRecorded = errors.New("file does not match the run's manifest")

// verified reads the run's table at path (rel inside the run) and checks
// the bytes read against the sha256 and size the manifest records, so
// that what is exported is what the run wrote.
func verified(path, rel string, recorded map[string]pipeline.Artifact) ([]byte, error) {
	a, ok := recorded[rel]
	if !ok {
		return nil, fmt.Errorf("export: %s: %w: %s lists no %s", path, ErrNotAsRecorded, pipeline.ManifestFile, rel)
	}
	// No more than the bytes recorded are read (one more tells a longer
	// file), from a regular file only: a FIFO or a link to /dev/zero in
	// a table's place is refused, not read for ever.
	data, err := pipeline.ReadRecord(path, a.Bytes+1)
	if err != nil {
		return nil, fmt.Errorf("export: %s: %w: %w", path, ErrNotAsRecorded, err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != a.SHA256 || int64(len(data)) != a.Bytes {
		return nil, fmt.Errorf("export: %s: %w: sha256 %s (%d bytes), recorded %s (%d bytes)", path, ErrNotAsRecorded, got, len(data), a.SHA256, a.Bytes)
	}
	return data, nil
}

// readRunFile reads the run's file rel: verified against the manifest
// when it lists it, and otherwise a regular file inside the run directory
// of at most pipeline.MaxRecordBytes.
func readRunFile(runDir, rel string, recorded map[string]pipeline.Artifact) ([]byte, error) {
	path, err := pipeline.LocalPath(runDir, rel)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if _, ok := recorded[rel]; ok {
		return verified(path, rel, recorded)
	}
	data, err := pipeline.ReadRecord(path, 0)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return data, nil
}

// copyTables passes every file of runDir/sub ending in ext to put, by name,
// in name order.
func copyTables(runDir, sub, ext string, put func(string, []byte) error, recorded map[string]pipeline.Artifact) error {
	ents, err := os.ReadDir(filepath.Join(runDir, sub))
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, e := range ents { // ReadDir sorts by name
		if e.IsDir() || !strings.HasSuffix(e.Name(), ext) {
			continue
		}
		data, err := readRunFile(runDir, sub+"/"+e.Name(), recorded)
		if err != nil {
			return err
		}
		if err := put(e.Name(), data); err != nil {
			return err
		}
	}
	return nil
}

// parquetToCSV reads a flat Parquet table (data, read from path) with
// Arrow's reader and writes it as CSV with Arrow's writer.
func parquetToCSV(ctx context.Context, path string, data []byte) ([]byte, error) {
	f, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("export: %s: %w", path, err)
	}
	defer f.Close()
	rd, err := pqarrow.NewFileReader(f, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, memory.NewGoAllocator())
	if err != nil {
		return nil, fmt.Errorf("export: %s: %w", path, err)
	}
	schema, err := rd.Schema()
	if err != nil {
		return nil, fmt.Errorf("export: %s: %w", path, err)
	}
	for _, fld := range schema.Fields() {
		if fld.Type.ID() == arrow.LIST || fld.Type.ID() == arrow.STRUCT {
			return nil, fmt.Errorf("export: %s: column %s is nested; CSV holds flat tables only", path, fld.Name)
		}
	}
	rr, err := rd.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("export: %s: %w", path, err)
	}
	defer rr.Release()
	var buf bytes.Buffer
	w := csv.NewWriter(&buf, schema, csv.WithHeader(true), csv.WithNullWriter(""))
	for rr.Next() {
		if err := w.Write(rr.Record()); err != nil {
			return nil, fmt.Errorf("export: %s: %w", path, err)
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("export: %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
