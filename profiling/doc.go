// Package profiling turns profiler output into co-location samples:
// readers for nvidia-smi dmon, DCGM exporter text, nsys CSV, /proc and
// pidstat, the local CPU-interference profiler, a synthetic co-location
// generator, and the measured GPU-sharing sources (Gavel, Lucid). The
// synthetic generator's ground truth and the GPU-sharing import are
// described in docs/packages.md (profiling).
//
// # What it owns
//
//   - The readers: each takes an io.Reader plus the file name used in
//     errors and returns typed observations (DmonRow, DCGMMetric,
//     NsysMemRow, ProcStat, PidStatRow); helpers and the CPU profiler
//     build Sample rows.
//   - Synthesize, which draws samples from a ground truth deliberately
//     not of the fitted family, so that fitting's models compete honestly.
//   - ImportShare, which reads Gavel's and Lucid's measured pairs of jobs
//     sharing a GPU into gpu_share_samples (ShareSample).
//   - The tables: profile_samples (Sample, WriteSamples) and
//     gpu_share_samples, which the fitting package reads.
//
// # What it promises
//
//   - Every input row is accepted or quarantined with its reason
//     (datasets.Rejected); a malformed file or a missing column is a
//     ParseError naming file, line and field, never a panic.
//   - Synthesize draws only from the rand.Source it is given. Nothing
//     here fits a model.
//
// # Extending it
//
// A new profiler format is a reader in a file of its own returning typed
// rows, with a ToSample-style helper, a fuzz target and testdata/ files
// (a real one and malformed ones); a new GPU-sharing source is a reader
// that ImportShare dispatches to, accounting for every row.
package profiling
