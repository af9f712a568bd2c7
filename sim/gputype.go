package sim

import (
	"slices"
	"strings"
)

// GPU types. A server kind named after a GPU type (v100, p100, k80: the
// types Gavel measured) holds eight GPUs of that type with pai-v100's
// CPUs, memory and NIC; "gavel-mixed" repeats v100, p100, k80 so that a
// cluster holds equal numbers of each, as Gavel's simulated cluster does
// (Narayanan et al., OSDI 2020, §7: 36 V100, 36 P100, 36 K80). How fast a
// job runs on each type is Cluster.GPUSpeed's; without one every type runs
// alike.
var (
	KindV100 = gpuKind("v100")
	KindP100 = gpuKind("p100")
	KindK80  = gpuKind("k80")
)

func gpuKind(name string) ServerKind {
	k := KindPAIV100
	k.Sockets = append([]Socket(nil), k.Sockets...)
	k.Name = name
	return k
}

// gpuKindAt is kindAt for the GPU-type kinds; ok is false for any other
// name.
func gpuKindAt(name string, i int) (k ServerKind, ok bool) {
	switch name {
	case "v100":
		return KindV100, true
	case "p100":
		return KindP100, true
	case "k80":
		return KindK80, true
	case "gavel-mixed":
		return [...]ServerKind{KindV100, KindP100, KindK80}[i%3], true
	}
	return ServerKind{}, false
}

// gpuKindNames are the names gpuKindAt accepts.
var gpuKindNames = []string{"v100", "p100", "k80", "gavel-mixed"}

// GPUTyped reports whether servers (ClusterSpec.Servers) names a kind of
// GPU-type servers, whose speeds a GPUSpeed sets.
func GPUTyped(servers string) bool { return slices.Contains(gpuKindNames, servers) }

// GPUSpeed is a job's speed on a GPU type (a server kind's name, lower
// case) relative to the type its recorded duration was measured on: 1
// there and wherever the table knows neither the job's model nor the
// type; above 0 everywhere. Package schedulers reads Gavel's measured
// throughputs into one (schedulers.GavelThroughputsAt), relative to V100,
// the type the Philly-via-Gavel reader measures durations on.
type GPUSpeed func(model, gpuType string) float64

// gpuRate is js's speed factor on the GPU types of its servers: the
// slowest of them, since a data-parallel job waits for its slowest worker
// at every iteration (Gavel places a job on one type; a placement that
// spans types runs at the slower). It is 1 when the cluster has no
// GPUSpeed, so that a homogeneous or type-blind run is unchanged to the
// bit (its rates are multiplied by exactly 1).
func (s *Sim) gpuRate(js *JobState) float64 {
	if s.cluster.GPUSpeed == nil || js.Job == nil {
		return 1
	}
	r := 0.0
	for k, srv := range js.Servers {
		v := s.cluster.GPUSpeed(js.Job.Model, strings.ToLower(s.cluster.Servers[srv].Kind.Name))
		if !(v > 0) {
			v = 1 // the table's contract: a type it cannot judge runs at the reference's pace
		}
		if k == 0 || v < r {
			r = v
		}
	}
	if r == 0 {
		return 1
	}
	return r
}
