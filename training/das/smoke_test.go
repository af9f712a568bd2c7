package das

import (
	"context"
	"testing"
	"time"

	"github.com/schedlab/schedlab/sim"
)

func TestSmoke(t *testing.T) {
	c := cluster(t, "small")
	cfg := tinyConfig(VariantDAS)
	jobs := synthJobs(t, 500, 1)
	sp, err := PrepareJobs(c, jobs, sim.DefaultConfig(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("train %d val %d pruned %d norm %+v", len(sp.Train), len(sp.Val), sp.Pruned, sp.Norm)
	start := time.Now()
	res, err := Train(context.Background(), cfg, sp, TrainOptions{Cluster: c, ClusterName: "small", Sim: sim.DefaultConfig(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b := res.Best()
	t.Logf("%v: init %+v final %+v", time.Since(start), b.InitVal, b.FinalVal)
	for _, r := range b.Curves {
		t.Logf("%+v", r)
	}
}
