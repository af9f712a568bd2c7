package profiling

import (
	"github.com/schedlab/schedlab/pipeline"

	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"unicode/utf8"
)

// ImportFormats are the formats Import reads.
var ImportFormats = []string{"dmon", "dcgm", "nsys", "proc-stat", "proc-pid-stat", "pidstat"}

// Import reads profiler files of one format into Readings, in file order
// then line order. The name recorded in each Reading is the file's base
// name, so outputs do not depend on where the files lie.
//
// Readings are utilisation figures, not co-location samples: a
// profile_samples row also needs the slowdown of a run beside known
// co-runners, which no profiler file records. Building samples from
// readings takes a run plan (which job ran with which, and their run
// times) and is left to the caller.
func Import(ctx context.Context, format string, files []string) ([]Reading, error) {
	if !slices.Contains(ImportFormats, format) {
		return nil, fmt.Errorf("profile.import.format: %q is not one of %v", format, ImportFormats)
	}
	if err := distinctFiles(files); err != nil {
		return nil, err
	}
	var out []Reading
	for _, path := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rd, err := importFile(format, path)
		if err != nil {
			return nil, err
		}
		// Every string written to Parquet must be UTF-8 (DuckDB refuses
		// the table otherwise): an entity (a pod, a command) that is not
		// stops the import at its line.
		for _, r := range rd {
			if !utf8.ValidString(r.Entity) {
				return nil, parseErr(path, int(r.Line), "entity", "invalid UTF-8 in %q", r.Entity)
			}
			if !utf8.ValidString(r.File) {
				return nil, parseErr(path, 0, "", "file name is not UTF-8")
			}
		}
		out = append(out, rd...)
	}
	return out, nil
}

// distinctFiles refuses a file named twice (by two paths or a link): its
// readings would be counted twice.
func distinctFiles(files []string) error {
	infos := make([]os.FileInfo, len(files))
	for i, f := range files {
		var err error
		if infos[i], err = os.Stat(f); err != nil {
			return err
		}
		for j := range i {
			if os.SameFile(infos[i], infos[j]) {
				return fmt.Errorf("profiling: %s and %s are the same file, named twice", files[j], f)
			}
		}
	}
	return nil
}

func importFile(format, path string) ([]Reading, error) {
	f, err := pipeline.OpenInput(path, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	base := filepath.Base(path)
	switch format {
	case "dmon":
		rows, err := ReadDmon(f, path)
		return DmonReadings(rows, base), err
	case "dcgm":
		ms, err := ReadDCGM(f, path)
		return DCGMReadings(ms, base), err
	case "nsys":
		rows, err := ReadNsysMem(f, path)
		return NsysReadings(rows, base), err
	case "proc-stat":
		cs, err := ReadProcStat(f, path)
		var out []Reading
		for _, c := range cs {
			out = append(out, Reading{Source: format, File: base, Line: int32(c.Line), Entity: c.CPU, Metric: MetricCPUTicks, Value: float64(c.Busy()), Unit: "ticks"})
		}
		return out, err
	case "proc-pid-stat":
		b, err := pipeline.ReadInput(path, 0)
		if err != nil {
			return nil, err
		}
		p, err := ParsePidStat(string(b), path)
		if err != nil {
			return nil, err
		}
		return []Reading{{Source: format, File: base, Line: 1, Entity: fmt.Sprintf("pid%d", p.PID), Metric: MetricCPUTicks, Value: float64(p.UTime + p.STime), Unit: "ticks"}}, nil
	default: // pidstat
		rows, err := ReadPidStat(f, path)
		var out []Reading
		for _, r := range rows {
			e := fmt.Sprintf("pid%d", r.PID)
			if r.Average {
				e += "/average"
			}
			out = append(out, Reading{Source: format, File: base, Line: int32(r.Line), Entity: e, Metric: MetricCPU, Value: r.Cores(), Unit: "cores"})
		}
		return out, err
	}
}
