package profiling

import (
	"context"
	"fmt"

	"github.com/schedlab/schedlab/datasets"
)

// Sample is one row of the profile_samples table: one co-location
// measurement of a target job J beside its co-runners J̃ on one server.
//
// Units: cores for CPU use (1.0 = one logical core fully busy), Gbit/s for
// PCIe use (host↔device traffic, both directions summed), slowdown as
// (T_real − T_alone)/T_alone, so 0 means no interference.
//
// Columns (Parquet names):
//
//	sample_id         stable id within the source ("synth-000042", "cpu-rep3-hog2")
//	source            where the row came from: synthetic, cpu-profiler, nvidia-smi, dcgm, nsys, proc, pidstat
//	model             target job's workload type ("ResNet-50", "cpu-reference", "" if unknown)
//	cpu_cores         C_J: the target's CPU use when alone
//	pcie_gbps         P_J: the target's PCIe use when alone
//	cores_per_socket  n_core of the server's sockets
//	co_runners        repeated group {socket, model, cpu_cores, pcie_gbps}: socket is
//	                  "same" (the target's socket / GPU group) or "other"; C and P as alone
//	slowdown          measured slowdown S of the target
//	repetitions       number of measurements averaged into slowdown (1 for synthetic)
type Sample struct {
	SampleID       string     `parquet:"sample_id" json:"sample_id"`
	Source         string     `parquet:"source" json:"source"`
	Model          string     `parquet:"model" json:"model"`
	CPUCores       float64    `parquet:"cpu_cores" json:"cpu_cores"`
	PCIeGbps       float64    `parquet:"pcie_gbps" json:"pcie_gbps"`
	CoresPerSocket float64    `parquet:"cores_per_socket" json:"cores_per_socket"`
	CoRunners      []CoRunner `parquet:"co_runners,list" json:"co_runners"`
	Slowdown       float64    `parquet:"slowdown" json:"slowdown"`
	Repetitions    int32      `parquet:"repetitions" json:"repetitions"`
}

// CoRunner is one job sharing the server with the target of a Sample.
type CoRunner struct {
	Socket   string  `parquet:"socket" json:"socket"` // SameSocket or OtherSocket
	Model    string  `parquet:"model" json:"model"`
	CPUCores float64 `parquet:"cpu_cores" json:"cpu_cores"`
	PCIeGbps float64 `parquet:"pcie_gbps" json:"pcie_gbps"`
}

// Socket values of CoRunner.Socket.
const (
	SameSocket  = "same"
	OtherSocket = "other"
)

// ProfileSamplesSource is the schedlab.source metadata prefix of profile
// sample files.
const ProfileSamplesSource = "profile_samples"

// WriteSamples writes samples to a profile_samples Parquet file at path,
// atomically. source names where they came from (metadata only).
func WriteSamples(ctx context.Context, path string, meta datasets.FileMeta, samples []Sample) error {
	return writeTable(ctx, "profile samples", path, meta, samples)
}

// ReadSamples reads a profile_samples Parquet file.
func ReadSamples(ctx context.Context, path string) ([]Sample, error) {
	return readTable[Sample](ctx, "profile samples", path)
}

// writeTable writes rows to the Parquet file at path, atomically, unless
// ctx is done; an error names the table (what).
func writeTable[T any](ctx context.Context, what, path string, meta datasets.FileMeta, rows []T) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := datasets.WriteParquet(path, meta, rows); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// readTable reads the Parquet file at path unless ctx is done; an error
// names the table (what).
func readTable[T any](ctx context.Context, what, path string) ([]T, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := datasets.ReadParquet[T](path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return rows, nil
}
