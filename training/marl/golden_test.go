package marl_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/marl"
)

// goldenRun pins the bits of a training run and of the trained policy's
// decisions: the speed-ups of the training code (incremental embeddings,
// buffer reuse) must not change a single float, so this test compares
// sha256 digests with the ones recorded from the code before them.
type goldenRun struct {
	variant                       string
	checkpoint, curves, decisions string
}

// golden was recorded on linux/amd64 before the issue-18 optimisations
// (commit b1f11f3); single's curves and decisions were re-recorded when
// the simulator's relink stopped marking jobs whose bottlenecks had not
// moved (the last bits of mean JCT and of the decision times; its
// checkpoint did not change). Set MARL_GOLDEN_PRINT=1 to print today's
// digests.
var golden = []goldenRun{
	{marl.VariantDevice, "ec68e762346e015fb7a949a12481f0c377cd37a551951f465d116bccf9724b9d", "d5f2ee6d817f12067a891ed1ceac0931531575afd7224f7e6d3a1de9ad7ff16c", "8f75c2f2bf3e52f44fe2a3fc84f64d6942d03588b45726ab0b4c64c6174fa306"},
	{marl.VariantServer, "8de457767a37b4166d0f62951d030e9158d1595f0bb328464e20dc0157224cea", "b77c092c55115b8bad4400e0638226c63e670407c034f556e75516c0484a6354", "c7f3bdf2c57198639073b974db17cdbf8b1ba8c2423d3321ef36c6520acf1743"},
	{marl.VariantSingle, "5db8a49cb8f1ceee9035f35b4ff8112eebbb7c529d4d07727840aa5f349bb004", "7364c6c461a04fe9a0bb4960dc1777388a9a4e59de5448b5b18e89d789cca817", "a4605b55628669d87245422499db75f270b8c38f825066e7a582aed8a992713f"},
}

// placementHasher wraps a scheduler and hashes every placement it returns,
// in order: the decisions themselves, not only their summary metrics.
type placementHasher struct {
	sim.Scheduler
	h []byte
}

func (p *placementHasher) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	pl, err := p.Scheduler.Schedule(ctx, st)
	b, _ := json.Marshal(struct {
		Now float64
		Pl  []sim.Placement
	}{st.Now, pl})
	sum := sha256.Sum256(append(p.h, b...))
	p.h = sum[:]
	return pl, err
}

// TestGoldenTraining trains every variant with the default architecture
// for three episodes on fat-tree k = 4 (with validation runs, so that the
// greedy scheduler path is pinned too), then schedules a fat-tree k = 8
// workload greedily and by sampling with the trained policy, and compares
// the digests of the checkpoint, the curves and every placement with the
// recorded ones.
//
// The digests hold on amd64 only: gonum's assembly kernels and Go's
// refusal to fuse multiply-adds there make every float reproducible,
// whereas on arm64 the compiler may fuse a*b+c into one rounding, which
// changes the last bits (legitimately: the determinism promise is per
// platform).
func TestGoldenTraining(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("digests recorded on amd64; %s may fuse multiply-adds", runtime.GOARCH)
	}
	print := os.Getenv("MARL_GOLDEN_PRINT") != ""
	c4, err := sim.FatTree(4, "power8")
	if err != nil {
		t.Fatal(err)
	}
	c8, err := sim.FatTree(8, "power8")
	if err != nil {
		t.Fatal(err)
	}
	jobs8 := workload(t, c8, 1, 3, 5)
	ctx := context.Background()
	for _, g := range golden {
		t.Run(g.variant, func(t *testing.T) {
			parts := c4.Pods
			if g.variant == marl.VariantSingle {
				parts = 1
			}
			train, test := datasets.SplitMARL(workload(t, c4, 0.6, 8, 3), parts, 0.1, 1800)
			cfg := marl.VariantConfig(g.variant)
			cfg.Episodes, cfg.ValidateEvery = 3, 2
			pol, curves, err := marl.Train(ctx, cfg, marl.TrainOptions{Cluster: c4, ClusterName: "fattree-k4", Train: train, Validation: test, Sim: intervalConfig(), Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := pol.Save(dir, nil); err != nil {
				t.Fatal(err)
			}
			ck, err := os.ReadFile(filepath.Join(dir, marl.CheckpointFile))
			if err != nil {
				t.Fatal(err)
			}
			cj, err := json.Marshal(curves)
			if err != nil {
				t.Fatal(err)
			}
			dec := sha256.New()
			for _, sample := range []bool{false, true} {
				ph := &placementHasher{Scheduler: pol.Scheduler(marl.SchedulerOptions{Sample: sample, Seed: 3})}
				res, err := sim.Run(ctx, c8, jobs8, ph, intervalConfig(), nil)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(struct {
					Jobs    []sim.JobResult
					Metrics sim.Metrics
				}{res.Jobs, res.Metrics})
				dec.Write(ph.h)
				dec.Write(b)
			}
			got := goldenRun{g.variant, digest(ck), digest(cj), hex.EncodeToString(dec.Sum(nil))}
			if print {
				fmt.Printf("\t{%q, %q, %q, %q},\n", g.variant, got.checkpoint, got.curves, got.decisions)
			}
			if got != g {
				t.Errorf("digests changed:\n got %+v\nwant %+v\ncurves: %s", got, g, cj)
			}
		})
	}
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
