package profiling

// GPU-sharing samples: measured speeds of deep-learning training jobs that
// share one GPU with one other job, from two public testbeds (Gavel's
// throughput table and Lucid's co-location table), as one canonical table.

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/datasets"
)

// ShareSample is one row of the gpu_share_samples table: one job of a pair
// measured sharing one GPU, with the standalone profiles of both jobs (what
// can be measured by running each alone) and its measured speed relative to
// running alone. Each measured pair gives two rows, one per job, with the
// same PairID (Gavel lists each pair twice, once under each job, and each
// entry gives its own job's row).
//
// Columns (Parquet names):
//
//	sample_id          stable id: "gavel-<gpu>-<line>", "lucid-rtx3090-<line>-<j|c>"
//	source             gavel or lucid
//	file, line         the input file's base name and the 1-based line of the pair's entry
//	pair_id            the same for both jobs of one measured pair
//	gpu                GPU type: k80, p100, v100 (Gavel), rtx3090 (Lucid)
//	job_type           the job's type, the unit of leave-type-out validation:
//	                   Gavel's job type (model and batch size, "ResNet-18 (batch size 16)"),
//	                   Lucid's model ("ResNet18")
//	job_model          the model family ("ResNet-18", "ResNet18")
//	job_config         the full configuration measured alone (Lucid: model/dataset/batch/amp)
//	job_batch_size     batch size; 0 where the source does not state one
//	job_solo           standalone throughput on this GPU (the source's own unit per second)
//	job_gpu_util       standalone GPU utilisation, a fraction in [0, 1] (see GPUUtilBasis)
//	job_gmem_mib       standalone GPU memory, MiB; null where the source does not record it
//	co_*               the same for the co-runner
//	util_basis         how the utilisations were obtained: measured (Lucid) or
//	                   amdahl (Gavel; derived from the standalone throughputs on the
//	                   three GPU types, see GavelUtilisation)
//	speed              the job's measured throughput beside the co-runner ÷ its standalone
//	                   throughput (values above 1 are measurement noise and are kept)
type ShareSample struct {
	SampleID string `parquet:"sample_id" json:"sample_id"`
	Source   string `parquet:"source" json:"source"`
	File     string `parquet:"file" json:"file"`
	Line     int64  `parquet:"line" json:"line"`
	PairID   string `parquet:"pair_id" json:"pair_id"`
	GPU      string `parquet:"gpu" json:"gpu"`

	JobType      string   `parquet:"job_type" json:"job_type"`
	JobModel     string   `parquet:"job_model" json:"job_model"`
	JobConfig    string   `parquet:"job_config" json:"job_config"`
	JobBatchSize int32    `parquet:"job_batch_size" json:"job_batch_size"`
	JobSolo      float64  `parquet:"job_solo" json:"job_solo"`
	JobGPUUtil   float64  `parquet:"job_gpu_util" json:"job_gpu_util"`
	JobGMemMiB   *float64 `parquet:"job_gmem_mib,optional" json:"job_gmem_mib"`

	CoType      string   `parquet:"co_type" json:"co_type"`
	CoModel     string   `parquet:"co_model" json:"co_model"`
	CoConfig    string   `parquet:"co_config" json:"co_config"`
	CoBatchSize int32    `parquet:"co_batch_size" json:"co_batch_size"`
	CoSolo      float64  `parquet:"co_solo" json:"co_solo"`
	CoGPUUtil   float64  `parquet:"co_gpu_util" json:"co_gpu_util"`
	CoGMemMiB   *float64 `parquet:"co_gmem_mib,optional" json:"co_gmem_mib"`

	UtilBasis string  `parquet:"util_basis" json:"util_basis"`
	Speed     float64 `parquet:"speed" json:"speed"`
}

// Share sources and utilisation bases.
const (
	ShareSourceGavel = "gavel"
	ShareSourceLucid = "lucid"
	UtilMeasured     = "measured"
	UtilAmdahl       = "amdahl"
)

// ShareSamplesSource is the schedlab.source metadata prefix of
// gpu_share_samples files ("gpu_share_samples:gavel").
const ShareSamplesSource = "gpu_share_samples"

// ShareFormats are the formats ImportShare reads.
var ShareFormats = []string{ShareSourceGavel, ShareSourceLucid}

// JobProfile is one job type's standalone GPU profile on one GPU type: the
// inputs of the GPU-sharing term, and what the simulator draws for trace
// jobs that name no model.
type JobProfile struct {
	Source    string   `json:"source"`
	GPU       string   `json:"gpu"`
	Type      string   `json:"type"`
	Model     string   `json:"model"`
	Config    string   `json:"config"`
	BatchSize int32    `json:"batch_size"`
	Solo      float64  `json:"solo"`
	GPUUtil   float64  `json:"gpu_util"`
	GMemMiB   *float64 `json:"gmem_mib,omitempty"`
	UtilBasis string   `json:"util_basis"`
	File      string   `json:"file"`
	Line      int64    `json:"line"`
}

// ShareImport is the outcome of one import: the samples, the standalone
// profiles they were built from, the rows refused, and the accounting.
// Rows = Solo + Pairs + Quarantined (every input row is a standalone row
// or a pair row, accepted or quarantined). An accepted Lucid pair row gives
// two Samples (one per job); an accepted Gavel pair entry one (Gavel lists
// each pair under each of its jobs).
type ShareImport struct {
	Samples     []ShareSample
	Profiles    []JobProfile
	Quarantined []datasets.Rejected
	Rows        int64 // input rows (Gavel: solo and pair entries; Lucid: CSV data lines)
	Pairs       int64 // pair rows accepted
	Solo        int64 // standalone rows accepted

	ids map[string]int // sample ids given, for sampleID
}

// Check reports a violation of the accounting.
func (r *ShareImport) Check() error {
	if r.Rows != r.Pairs+r.Solo+int64(len(r.Quarantined)) {
		return fmt.Errorf("profiling: share import accounting broken: %d rows ≠ %d pairs + %d standalone + %d quarantined",
			r.Rows, r.Pairs, r.Solo, len(r.Quarantined))
	}
	return nil
}

func (r *ShareImport) reject(source, file string, line int64, field, reason, raw string) {
	r.Quarantined = append(r.Quarantined, datasets.Rejected{Source: source, File: datasets.ValidText(file, 0), Line: line,
		Field: field, Reason: datasets.ValidText(reason, 0), Raw: datasets.ValidText(raw, datasets.MaxRawBytes)})
}

// addPair appends the two samples of one accepted pair row (Lucid: one
// row per measured pair), or quarantines the row when a sample breaks the
// bounds of its columns (datasets.CheckRow).
func (r *ShareImport) addPair(source, file string, line int64, gpu string, a, b *JobProfile, speedA, speedB float64, raw string) {
	id := r.sampleID(fmt.Sprintf("%s-%s-%d", source, gpu, line))
	s := []ShareSample{shareSample(id+"-j", id, source, file, line, gpu, a, b, speedA),
		shareSample(id+"-c", id, source, file, line, gpu, b, a, speedB)}
	if r.outOfBounds(source, file, line, raw, s) {
		return
	}
	r.Samples = append(r.Samples, s...)
	r.Pairs++
}

// addOne appends the one sample of an accepted pair row that measures one
// job (Gavel: each pair is listed under each of its jobs), or quarantines
// the row as addPair does.
func (r *ShareImport) addOne(source, file string, line int64, gpu string, j, c *JobProfile, speed float64, raw string) {
	x, y := j.Type, c.Type
	if y < x {
		x, y = y, x
	}
	pair := fmt.Sprintf("%s-%s-%s+%s", source, gpu, x, y)
	s := []ShareSample{shareSample(r.sampleID(fmt.Sprintf("%s-%s-%d", source, gpu, line)), pair, source, file, line, gpu, j, c, speed)}
	if r.outOfBounds(source, file, line, raw, s) {
		return
	}
	r.Samples = append(r.Samples, s...)
	r.Pairs++
}

// sampleID makes id unique among the import's samples: a file whose
// entries share a line (minified JSON) numbers its repeats "-2", "-3", ….
func (r *ShareImport) sampleID(id string) string {
	if r.ids == nil {
		r.ids = map[string]int{}
	}
	r.ids[id]++
	if n := r.ids[id]; n > 1 {
		return fmt.Sprintf("%s-%d", id, n)
	}
	return id
}

// outOfBounds quarantines the row of samples s when one breaks the bounds
// of its columns, naming the column.
func (r *ShareImport) outOfBounds(source, file string, line int64, raw string, s []ShareSample) bool {
	for i := range s {
		if bf := datasets.CheckRow(&s[i]); bf != nil {
			r.reject(source, file, line, bf.Field, bf.Reason, raw)
			return true
		}
	}
	return false
}

func shareSample(id, pair, source, file string, line int64, gpu string, j, c *JobProfile, speed float64) ShareSample {
	return ShareSample{SampleID: id, Source: source, File: file, Line: line, PairID: pair, GPU: gpu,
		JobType: j.Type, JobModel: j.Model, JobConfig: j.Config, JobBatchSize: j.BatchSize, JobSolo: j.Solo,
		JobGPUUtil: j.GPUUtil, JobGMemMiB: j.GMemMiB,
		CoType: c.Type, CoModel: c.Model, CoConfig: c.Config, CoBatchSize: c.BatchSize, CoSolo: c.Solo,
		CoGPUUtil: c.GPUUtil, CoGMemMiB: c.GMemMiB,
		UtilBasis: j.UtilBasis, Speed: speed}
}

// AboveOne counts the samples measured faster than alone (noise; kept).
func (r *ShareImport) AboveOne() int {
	n := 0
	for i := range r.Samples {
		if r.Samples[i].Speed > 1 {
			n++
		}
	}
	return n
}

// ImportShare reads one source's files into GPU-sharing samples: format
// gavel takes one file (Gavel's throughput JSON), lucid two (the
// co-location CSV, then the standalone CSV). File names recorded in rows
// are base names, so outputs do not depend on where the files lie. A file
// that cannot be parsed (malformed JSON or CSV, a missing column) is an
// error naming file, line and field; a row that parses but cannot be a
// sample is quarantined with its reason.
func ImportShare(ctx context.Context, format string, files []string) (*ShareImport, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var (
		r   *ShareImport
		err error
	)
	switch format {
	case ShareSourceGavel:
		if len(files) != 1 {
			return nil, fmt.Errorf("profile.import: format gavel takes one file (the throughput JSON), got %d", len(files))
		}
		r, err = importGavel(files[0])
	case ShareSourceLucid:
		if len(files) != 2 {
			return nil, fmt.Errorf("profile.import: format lucid takes two files (COLOCATE.csv SINGLE.csv), got %d", len(files))
		}
		if err := distinctFiles(files); err != nil {
			return nil, err
		}
		r, err = importLucid(files[0], files[1])
	default:
		return nil, fmt.Errorf("profile.import.format: %q is not one of %v", format, ShareFormats)
	}
	if err != nil {
		return nil, err
	}
	if err := r.Check(); err != nil {
		return nil, err
	}
	return r, nil
}

// ShareQuarantinePath is where profile import puts the rows it refused
// beside the samples file out: out without ".parquet", plus
// ".quarantine.parquet".
func ShareQuarantinePath(out string) string {
	return strings.TrimSuffix(out, ".parquet") + ".quarantine.parquet"
}

// WriteShareSamples writes samples to a gpu_share_samples Parquet file at
// path, atomically.
func WriteShareSamples(ctx context.Context, path string, meta datasets.FileMeta, samples []ShareSample) error {
	return writeTable(ctx, "gpu share samples", path, meta, samples)
}

// ReadShareSamples reads a gpu_share_samples Parquet file.
func ReadShareSamples(ctx context.Context, path string) ([]ShareSample, error) {
	return readTable[ShareSample](ctx, "gpu share samples", path)
}

// positiveFinite checks a throughput or utilisation that must be > 0.
func positiveFinite(v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("not finite (%s)", strconv.FormatFloat(v, 'g', -1, 64))
	}
	if v <= 0 {
		return fmt.Errorf("must be > 0, got %s", strconv.FormatFloat(v, 'g', -1, 64))
	}
	return nil
}
