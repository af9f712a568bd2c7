// Package profiling turns profiler output into co-location samples: readers
// for nvidia-smi dmon, DCGM exporter text, nsys CSV, /proc and pidstat, the
// local CPU-interference profiler, and a synthetic co-location generator.
// Samples leave the package as profile_samples tables (Sample, written by
// WriteSamples) for the fitting package.
//
// # GPU-sharing samples (gpushare.go, gavel.go, lucid.go)
//
// ImportShare reads measured pairs of training jobs sharing one GPU —
// Gavel's throughput JSON (26 job types alone and in pairs on K80, P100,
// V100) and Lucid's co-location and standalone CSVs (RTX 3090) — into the
// gpu_share_samples table (ShareSample): per job of a pair, both jobs'
// standalone profiles (GPU utilisation, memory, batch size, solo
// throughput), the GPU type, and the job's speed relative to alone, with
// source, file and line. Every input row (a standalone row or a pair row)
// is accepted or quarantined with its reason (datasets.Rejected: a pair not
// run, a non-positive or non-finite throughput, a job with no standalone
// row, an entry that is not a one-GPU measurement); a malformed file, or a
// missing column, is a ParseError naming file, line and field. Speeds above
// 1 (noise) are kept and counted. Gavel records no utilisation: it is
// derived from each type's standalone throughputs on the three GPU types
// by Amdahl's law (GavelUtilisation), and the rows say so (util_basis).
//
// # Data in and out
//
// Readers take an io.Reader plus the file name used in error messages
// ("file:line: field: problem") and return typed observations (DmonRow,
// DCGMMetric, NsysMemRow, ProcStat, PidStatRow). ToSample-style helpers
// and the CPU profiler build Sample rows; Synthesize draws them from a
// ground truth. Nothing here fits a model.
//
// # Synthetic ground truth (Synthesize)
//
// The generator exists so that the interference models of the fitting
// package can be compared honestly: its ground truth is deliberately NOT
// the fitted family (an exponential in CPU use plus a linear PCIe term).
// Server: 2 sockets × n_core physical cores (hyper-threaded), 2 GPUs per
// socket, one PCIe link of B Gbit/s per socket (defaults: 8 cores, 128
// Gbit/s, as the MARL paper's power8 server). A job's standalone iteration
// time is 1 = CPU share + PCIe share + GPU share (TableI). With co-runners:
//
//   - CPU demand per socket: d0 = C_J + Σ_same C_j, d1 = Σ_other C_j. The OS
//     balancer migrates half of socket 0's excess over n_core into socket
//     1's idle physical cores (and vice versa; frameworks pin the rest near
//     their GPU); migrated threads run at 0.8× (NUMA).
//   - Thread speed on a socket with demand d: 1 for d ≤ n, (n + h(d−n))/d for
//     n < d ≤ 2n (hyper-thread pairs: a core gives 1+h for two threads,
//     h = 0.3), n(1+h)/d beyond 2n (time slicing); divided by a shared-cache
//     penalty 1 + κ·σ_J·(d/n)² (κ = 0.15, σ_J the model's cache sensitivity).
//   - The target's CPU phase runs at the harmonic mix of local and migrated
//     thread speeds.
//   - PCIe: the socket's link carries p = P_J + Σ_same P_j; below saturation
//     the PCIe phase stretches by 1 + 0.3(p/B)² (queueing), beyond it the link
//     is shared in proportion to demand: 1.3·p/B.
//   - S = T/T_alone − 1, then measured as (1+S)·exp(σε) − 1 with ε ~ N(0,1),
//     σ = 0.03 (multiplicative run-time noise).
//
// Co-locations: the target on GPU 0 of socket 0; each other GPU holds a
// TableI job with probability ½; each socket gets 0–2 CPU hogs (the paper's
// CPU workload generator) of 0.5–8 cores. TableI's C_J and P_J are
// sim.Profiles' (the one profile table, whose source column says that no
// paper gives them); only the phase shares and cache sensitivities, part of
// the ground truth's functional form, are this package's (assumptions).
package profiling
