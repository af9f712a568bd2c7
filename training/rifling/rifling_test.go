package rifling

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/das/dastest"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/rl"
)

func jobs(n int, seed uint64) []datasets.Job {
	rng := pipeline.Rand(seed, "test", "rifling")
	out := make([]datasets.Job, n)
	now := 0.0
	for i := range out {
		now += rng.ExpFloat64() * 400
		inst := int32(1 + rng.IntN(4))
		gpu := []float64{1, 2, 4, 8}[rng.IntN(4)]
		out[i] = datasets.Job{JobID: fmt.Sprintf("r%d", i), Source: "test", SubmitS: now, DurationS: 600 + 3000*rng.Float64(),
			Model: []string{"resnet50", "vgg16", "dssm"}[rng.IntN(3)],
			Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: inst, GPU: gpu, CPU: 4 * gpu, MemGiB: 20 * gpu}}}
	}
	return out
}

func setup(t *testing.T) (*sim.Cluster, daspaper.Split) {
	t.Helper()
	return dastest.SmallSplit(t, jobs(400, 1), 400)
}

func TestKMeansSeparatesBlobs(t *testing.T) {
	rng := pipeline.Rand(1, "test", "blobs")
	centres := [][]float64{{0, 0}, {5, 5}, {0, 5}}
	var pts [][]float64
	for i := 0; i < 300; i++ {
		c := centres[i%3]
		pts = append(pts, []float64{c[0] + 0.1*rng.NormFloat64(), c[1] + 0.1*rng.NormFloat64()})
	}
	got := kmeans(pts, 3, 50, pipeline.Rand(2, "test", "km"))
	for _, c := range centres {
		best := math.Inf(1)
		for _, g := range got {
			best = math.Min(best, math.Hypot(g[0]-c[0], g[1]-c[1]))
		}
		if best > 0.05 {
			t.Errorf("no centroid near %v: %v", c, got)
		}
	}
}

func TestTrainRoundTripAndDeterminism(t *testing.T) {
	c, sp := setup(t)
	cfg := DefaultConfig()
	cfg.Episodes, cfg.SegmentJobs = 4, 100
	train := func() *Result {
		res, err := Train(context.Background(), cfg, sp, TrainOptions{Cluster: c, ClusterName: "small", Sim: sim.DefaultConfig(), Seed: 5,
			OnEpisode: dastest.LogEpisodes(t)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := train()
	if want := int(math.Round(math.Sqrt(float64(len(sp.Train)) / 2))); len(res.Policy.Centroids) != want {
		t.Errorf("%d groups for %d training jobs, want √(N/2) = %d", len(res.Policy.Centroids), len(sp.Train), want)
	}
	t.Logf("validation mean JCT: untrained (pack, FIFO) %.0f s, trained %.0f s; Q visits %d",
		res.InitVal.Metrics.MeanJCTS, res.FinalVal.Metrics.MeanJCTS, res.Policy.Q.T)
	dir := t.TempDir()
	p := filepath.Join(dir, "rifling.json")
	if err := Save(p, res.Policy, "small"); err != nil {
		t.Fatal(err)
	}
	dastest.CheckReplay(t, Open, p, c, sp.Val, res.FinalVal.Metrics)
	q := filepath.Join(dir, "again.json")
	if err := Save(q, train().Policy, "small"); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(p)
	b, _ := os.ReadFile(q)
	if !bytes.Equal(a, b) {
		t.Error("same seed, different policies")
	}
	// A file of another family is refused.
	if err := os.WriteFile(q, bytes.Replace(a, []byte(`"family": "rifling"`), []byte(`"family": "das"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(q); err == nil {
		t.Error("loaded a file whose family is das")
	}
}

// TestWaitOnlyOnce: a table that always prefers waiting makes every job
// wait exactly once, and the run still finishes every job.
func TestWaitOnlyOnce(t *testing.T) {
	c, sp := setup(t)
	p := &Policy{Config: DefaultConfig(), Centroids: [][]float64{make([]float64, stateWidth)}}
	p.Q = newTable(1)
	p.Q.Values(0)[ActWait] = 1
	d := newDecider(p, nil, false, nil)
	s, err := sim.New(c, sp.Val, sim.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for {
		st, err := s.Next(context.Background())
		if err != nil {
			break
		}
		pl, _ := d.decide(st)
		for _, x := range pl {
			if w, ok := d.waited[x.Job]; !ok || w != -1 {
				t.Fatalf("job %d started without having waited once", x.Job)
			}
		}
		if err := s.Apply(pl); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Result().Metrics.Jobs; got != len(sp.Val) {
		t.Errorf("%d of %d jobs finished", got, len(sp.Val))
	}
}

func newTable(states int) *rl.QTable {
	return rl.NewQTable(states, numActions, DefaultConfig().Alpha, DefaultConfig().Gamma)
}

// TestSampleStatesDraw: with more states than the limit, sampleStates
// keeps exactly the states that keeping every one and drawing
// rng.Perm(n)[:limit] afterwards kept (the way it held them all before
// issue 18), and with fewer it keeps every one.
func TestSampleStatesDraw(t *testing.T) {
	c, sp := setup(t)
	cfg := DefaultConfig()
	opts := TrainOptions{Cluster: c, Sim: sim.DefaultConfig()}
	probe := &Policy{Config: cfg, Centroids: [][]float64{make([]float64, stateWidth)}, Q: rl.NewQTable(1, numActions, cfg.Alpha, cfg.Gamma)}
	var all [][]float64
	if _, err := probe.run(context.Background(), c, opts.Sim, nil, sp.Train, nil, false, func(x []float64) { all = append(all, x) }); err != nil {
		t.Fatal(err)
	}
	n := len(all)
	if n < 100 {
		t.Fatalf("only %d states: too few to draw from", n)
	}
	for _, limit := range []int{n / 7, n - 1, n, n + 5} {
		got, err := sampleStates(context.Background(), cfg, opts, sp.Train, limit, pipeline.Rand(3, "test", "kmeans"))
		if err != nil {
			t.Fatal(err)
		}
		want := all
		if n > limit {
			idx := pipeline.Rand(3, "test", "kmeans").Perm(n)[:limit]
			slices.Sort(idx)
			want = make([][]float64, limit)
			for i, j := range idx {
				want[i] = all[j]
			}
		}
		if len(got) != len(want) {
			t.Fatalf("limit %d of %d: %d states, want %d", limit, n, len(got), len(want))
		}
		for i := range want {
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("limit %d of %d: state %d is %v, want %v", limit, n, i, got[i], want[i])
			}
		}
	}
}

// TestSeedCentresIsKMeansPlusPlus: seedCentres draws the same centres, to
// the bit, as k-means++ written from its definition (each round every
// point's squared distance to its nearest centre, over all centres so
// far), on point sets with repeated points, at k below, at and above the
// distinct points, and at several seeds.
func TestSeedCentresIsKMeansPlusPlus(t *testing.T) {
	definition := func(points [][]float64, k int, rng *rand.Rand) [][]float64 {
		k = min(k, len(points))
		cents := [][]float64{slices.Clone(points[rng.IntN(len(points))])}
		for len(cents) < k {
			d2 := make([]float64, len(points))
			sum := 0.0
			for i, p := range points {
				d2[i] = math.Inf(1)
				for _, c := range cents {
					d2[i] = math.Min(d2[i], sqDist(p, c))
				}
				sum += d2[i]
			}
			if sum == 0 {
				break
			}
			u, j := rng.Float64()*sum, 0
			for ; j < len(points)-1; j++ {
				if u -= d2[j]; u <= 0 {
					break
				}
			}
			cents = append(cents, slices.Clone(points[j]))
		}
		return cents
	}
	for seed := uint64(1); seed <= 5; seed++ {
		gen := pipeline.Rand(seed, "test", "points")
		var pts [][]float64
		for i := 0; i < 200; i++ {
			if i%7 == 3 {
				pts = append(pts, slices.Clone(pts[gen.IntN(len(pts))])) // repeated points
				continue
			}
			pts = append(pts, []float64{gen.NormFloat64(), 3 * gen.NormFloat64(), float64(gen.IntN(4))})
		}
		for _, k := range []int{1, 2, 8, 40, 250} {
			got := seedCentres(pts, k, pipeline.Rand(seed, "test", "seed"))
			want := definition(pts, k, pipeline.Rand(seed, "test", "seed"))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d, k %d: %d centres %v, want %d %v", seed, k, len(got), got, len(want), want)
			}
		}
		few := [][]float64{{1, 1}, {1, 1}, {2, 2}, {1, 1}}
		if got, want := seedCentres(few, 4, pipeline.Rand(seed, "test", "few")), definition(few, 4, pipeline.Rand(seed, "test", "few")); !reflect.DeepEqual(got, want) || len(got) != 2 {
			t.Fatalf("seed %d, two distinct points: %v, want %v (two centres)", seed, got, want)
		}
	}
}
