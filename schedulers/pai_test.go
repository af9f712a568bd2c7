package schedulers_test

import (
	"context"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"strconv"
	"testing"

	"github.com/schedlab/schedlab/internal/shareddata"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
)

// paiSubset reads the shared 6,000-job PAI subset
// (operate_simulator_jobs_6000.csv); the test skips where it is absent.
func paiSubset(t testing.TB) []datasets.Job {
	t.Helper()
	return readPAISim(t, shareddata.Path(t, "pai-v2020/operate_simulator_jobs_6000.csv"))
}

// paiCluster is the flat cluster of n pai-v100 servers (the DAS paper's
// Small is 8, Large 32).
func paiCluster(t testing.TB, n int) *sim.Cluster {
	t.Helper()
	return simtest.Flat(t, n, "pai-v100")
}

// readPAISim reads the simulator columns of operate_simulator_jobs_6000.csv:
// num_inst pods, num_gpu and num_cpu job totals, submit_time and duration in
// seconds. Memory is absent in that file (0). A stand-in for the datasets
// reader, enough for checking the simulator on real jobs.
func readPAISim(t testing.TB, path string) []datasets.Job {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	var jobs []datasets.Job
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		num := func(name string) float64 {
			v, err := strconv.ParseFloat(rec[col[name]], 64)
			if err != nil {
				t.Fatalf("%s:%d: %s: %v", path, line, name, err)
			}
			return v
		}
		inst := num("num_inst")
		jobs = append(jobs, datasets.Job{
			JobID: rec[col["job_id"]], Source: "pai-sim", SubmitS: num("submit_time"), DurationS: num("duration"), User: rec[col["user"]],
			Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: int32(inst), GPU: num("num_gpu") / inst, CPU: num("num_cpu") / inst}},
		})
	}
	return jobs
}

// TestPAISubset runs the heuristics on the 6000-job PAI subset on the DAS
// clusters and logs the metrics; it checks only accounting (every job
// finished or pruned).
func TestPAISubset(t *testing.T) {
	jobs := paiSubset(t)
	if len(jobs) != 6000 {
		t.Fatalf("read %d jobs, want 6000", len(jobs))
	}
	type cell struct{ preset, name string }
	cells := []cell{{"small", "fifo-firstfit"}}
	if !testing.Short() && !raceEnabled {
		cells = append(cells, cell{"large", "drf-firstfit"})
	}
	for _, cl := range cells {
		preset, name := cl.preset, cl.name
		spec, _ := sim.Preset(preset)
		c, err := spec.Build()
		if err != nil {
			t.Fatal(err)
		}
		{
			s, _ := schedulers.New(schedulers.Name(name), schedulers.Options{})
			res, err := sim.Run(context.Background(), c, jobs, s, sim.DefaultConfig(), nil)
			if err != nil {
				t.Fatalf("%s/%s: %v", preset, name, err)
			}
			m := res.Metrics
			if m.Jobs+m.Pruned != len(jobs) {
				t.Errorf("%s/%s: %d finished + %d pruned != %d", preset, name, m.Jobs, m.Pruned, len(jobs))
			}
			t.Logf("%-6s %-16s finished %d pruned %d meanJCT %.1f min p95 %.1f min fee $%.2f util %.3f slowdown %.3f",
				preset, name, m.Jobs, m.Pruned, m.MeanJCTS/60, m.P95JCTS/60, m.MeanFeeUSD, m.GPUUtil, m.MeanSlowdown)
		}
	}
}
