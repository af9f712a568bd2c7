package schedulers_test

import (
	"context"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// twoGPUCluster is one server of two GPUs: a 2-GPU job fills it.
func twoGPUCluster(t *testing.T) *sim.Cluster {
	t.Helper()
	c, err := sim.Racks(1, 1, sim.ServerKind{Name: "g2", Sockets: []sim.Socket{{Cores: 8, GPUs: 2, PCIeGbps: 128}}, MemGiB: 64, NICGbps: 10})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func gpuJob(id string, submit, dur float64, gpus int32) datasets.Job {
	return datasets.Job{JobID: id, SubmitS: submit, DurationS: dur,
		Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: 1, GPU: float64(gpus)}}}
}

func replayPolicy(t *testing.T, c *sim.Cluster, jobs []datasets.Job, name schedulers.Name, opt schedulers.Options, restart float64) *sim.Result {
	t.Helper()
	s, err := schedulers.New(name, opt)
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.DefaultConfig()
	cfg.Speed = sim.SpeedStandalone
	cfg.Trigger = sim.TriggerEvery
	cfg.RestartS = sim.RestartFixed(restart)
	res, err := sim.Run(context.Background(), c, jobs, s, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGandivaTimeSlicing: two jobs that each fill the cluster share it in
// 60 s rounds, worked out by hand. A runs 0–60; B, waiting since 10,
// takes the round 60–120 (A suspended); A the round 120–180, finishing at
// 160 with its 100 s done; B resumes at once (room, mid-round) and ends at
// 200. With a 30 s restart each resume costs 30 s more, which adds a
// round: A 0–60, 120–180, 240–280; B 60–120, 180–240, 280–320. When both
// jobs fit, nothing is suspended.
func TestGandivaTimeSlicing(t *testing.T) {
	c := twoGPUCluster(t)
	for _, tc := range []struct {
		name              string
		jobs              []datasets.Job
		restart           float64
		start, end, preem [2]float64
	}{
		{"oversubscribed", []datasets.Job{gpuJob("A", 0, 100, 2), gpuJob("B", 10, 100, 2)}, 0,
			[2]float64{0, 60}, [2]float64{160, 200}, [2]float64{1, 1}},
		{"restart 30 s", []datasets.Job{gpuJob("A", 0, 100, 2), gpuJob("B", 10, 100, 2)}, 30,
			[2]float64{0, 60}, [2]float64{280, 320}, [2]float64{2, 2}},
		{"fits", []datasets.Job{gpuJob("A", 0, 100, 1), gpuJob("B", 10, 100, 1)}, 0,
			[2]float64{0, 10}, [2]float64{100, 110}, [2]float64{0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := replayPolicy(t, c, tc.jobs, "gandiva", schedulers.Options{}, tc.restart)
			preempted := map[int]int{}
			for _, p := range res.Preempted {
				preempted[p.Index] = p.Preemptions
			}
			for i, j := range res.Jobs {
				if j.StartS != tc.start[i] || j.FinishS != tc.end[i] || float64(preempted[i]) != tc.preem[i] {
					t.Errorf("job %s: %g–%g, %d preemptions; want %g–%g, %g", j.JobID, j.StartS, j.FinishS, preempted[i], tc.start[i], tc.end[i], tc.preem[i])
				}
			}
		})
	}
}
