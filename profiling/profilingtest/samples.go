// Package profilingtest holds the profile_samples tables that lack a
// column, or hold it only as nulls, which the tests of profiling's reader
// and of the commands that read samples (schedlab fit) write: valid
// Parquet (Arrow reads them) that parquet-go would read with the column
// as zeros, so that a fit would fit zeros.
package profilingtest

import "github.com/schedlab/schedlab/profiling"

// NoSlowdown is a profile_samples row without the slowdown column.
type NoSlowdown struct {
	SampleID       string               `parquet:"sample_id"`
	Source         string               `parquet:"source"`
	Model          string               `parquet:"model"`
	CPUCores       float64              `parquet:"cpu_cores"`
	PCIeGbps       float64              `parquet:"pcie_gbps"`
	CoresPerSocket float64              `parquet:"cores_per_socket"`
	CoRunners      []profiling.CoRunner `parquet:"co_runners,list"`
	Repetitions    int32                `parquet:"repetitions"`
}

// NullSlowdown is a profile_samples row whose slowdown is null.
type NullSlowdown struct {
	NoSlowdown
	Slowdown *float64 `parquet:"slowdown,optional"`
}

// NoCoresPerSocket is a profile_samples row without the cores_per_socket
// column.
type NoCoresPerSocket struct {
	SampleID    string               `parquet:"sample_id"`
	Source      string               `parquet:"source"`
	Model       string               `parquet:"model"`
	CPUCores    float64              `parquet:"cpu_cores"`
	PCIeGbps    float64              `parquet:"pcie_gbps"`
	CoRunners   []profiling.CoRunner `parquet:"co_runners,list"`
	Slowdown    float64              `parquet:"slowdown"`
	Repetitions int32                `parquet:"repetitions"`
}

// Damaged returns samples as the three damaged tables' rows: without
// slowdown, with slowdown null, and without cores_per_socket.
func Damaged(samples []profiling.Sample) (noSlowdown []NoSlowdown, nullSlowdown []NullSlowdown, noCores []NoCoresPerSocket) {
	for _, s := range samples {
		ns := NoSlowdown{s.SampleID, s.Source, s.Model, s.CPUCores, s.PCIeGbps, s.CoresPerSocket, s.CoRunners, s.Repetitions}
		noSlowdown = append(noSlowdown, ns)
		nullSlowdown = append(nullSlowdown, NullSlowdown{NoSlowdown: ns})
		noCores = append(noCores, NoCoresPerSocket{s.SampleID, s.Source, s.Model, s.CPUCores, s.PCIeGbps, s.CoRunners, s.Slowdown, s.Repetitions})
	}
	return noSlowdown, nullSlowdown, noCores
}
