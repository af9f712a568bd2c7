package schedulers

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/profiling"
)

// GavelThroughputsFile is where Options.DataDir keeps Gavel's measured
// throughputs (stanford-futuredata/gavel, simulation_throughputs.json).
const GavelThroughputsFile = "colocation/gavel_throughputs.json"

// gavelReference is the GPU type Gavel's throughputs are taken relative
// to: the Philly-via-Gavel reader turns steps into seconds at its V100
// throughput, so a job's recorded duration is its V100 time.
const gavelReference = "v100"

// GavelThroughputs turns Gavel's standalone profiles (profiling's reader
// of its throughputs file, ImportShare "gavel") into Throughputs: a job's
// throughput on a GPU type named k80, p100 or v100 (a server kind's name,
// any case) relative to its V100 throughput. A job's model is matched as
// the Philly-via-Gavel reader names it (datasets.GavelModel: "resnet-18");
// Gavel measures each model at several batch sizes, and the traces keep
// the model only, so a model's ratio on a type is the geometric mean of
// its batch sizes' ratios. A model Gavel did not measure, or a type that
// is not one of Gavel's, runs at the reference's speed (1).
func GavelThroughputs(profiles []profiling.JobProfile) Throughputs {
	solo := map[string]map[string]float64{} // type → GPU → throughput
	model := map[string]string{}            // type → model
	for _, p := range profiles {
		if solo[p.Type] == nil {
			solo[p.Type] = map[string]float64{}
		}
		solo[p.Type][p.GPU] = p.Solo
		model[p.Type] = datasets.GavelModel(p.Type)
	}
	type acc struct {
		logSum float64
		n      int
	}
	sums := map[[2]string]*acc{} // (model, GPU)
	for typ, byGPU := range solo {
		ref := byGPU[gavelReference]
		if !(ref > 0) {
			continue
		}
		for gpu, v := range byGPU {
			if !(v > 0) {
				continue
			}
			k := [2]string{model[typ], gpu}
			if sums[k] == nil {
				sums[k] = &acc{}
			}
			sums[k].logSum += math.Log(v / ref)
			sums[k].n++
		}
	}
	ratio := make(map[[2]string]float64, len(sums))
	for k, a := range sums {
		ratio[k] = math.Exp(a.logSum / float64(a.n))
	}
	return func(m, gpuType string) float64 {
		if r, ok := ratio[[2]string{datasets.GavelModel(m), strings.ToLower(gpuType)}]; ok {
			return r
		}
		return 1
	}
}

var gavelTable struct {
	sync.Mutex
	byPath map[string]Throughputs
}

// gavelThroughputsIn reads Gavel's throughputs under dataDir (see
// GavelThroughputsAt).
func gavelThroughputsIn(dataDir string) (Throughputs, error) {
	if dataDir == "" {
		return nil, nil
	}
	return GavelThroughputsAt(filepath.Join(dataDir, GavelThroughputsFile))
}

// GavelThroughputsAt reads Gavel's throughputs file once per path; nil
// when path is "" or there is no such file (every type then runs alike).
func GavelThroughputsAt(path string) (Throughputs, error) {
	if path == "" {
		return nil, nil
	}
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	gavelTable.Lock()
	defer gavelTable.Unlock()
	if t, ok := gavelTable.byPath[path]; ok {
		return t, nil
	}
	imp, err := profiling.ImportShare(context.Background(), "gavel", []string{path})
	if err != nil {
		return nil, err
	}
	t := GavelThroughputs(imp.Profiles)
	if gavelTable.byPath == nil {
		gavelTable.byPath = map[string]Throughputs{}
	}
	gavelTable.byPath[path] = t
	return t, nil
}
