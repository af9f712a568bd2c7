package dastest

import (
	"context"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// CheckReplay opens the policy saved at path, runs it as a sim.Scheduler
// on jobs on c (default simulator and interference) and fails t unless
// the metrics are want, those training measured for the same policy: a
// checkpoint must hold exactly the policy that was validated.
func CheckReplay[S sim.Scheduler](t testing.TB, open func(path string) (S, error), path string, c *sim.Cluster, jobs []datasets.Job, want sim.Metrics) {
	t.Helper()
	s, err := open(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Run(context.Background(), c, jobs, s, sim.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Metrics != want {
		t.Errorf("loaded policy under sim.Run: %+v\ntrained policy in Train: %+v", r.Metrics, want)
	}
}
