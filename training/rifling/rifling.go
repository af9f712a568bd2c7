package rifling

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/rl"
)

// Actions.
const (
	ActPack = iota
	ActSpread
	ActBestFit
	ActWait
	numActions
)

// ActionNames name the actions, by index.
var ActionNames = []string{"pack", "spread", "best-fit", "wait"}

// Config configures RIFLING. Start from DefaultConfig.
type Config struct {
	// Clusters is k; 0 means √(N/2) for N training jobs (DAS Table 2).
	Clusters    int     `json:"clusters"`
	KMeansIters int     `json:"kmeans_iters"`
	Alpha       float64 `json:"alpha"` // Q-learning step size
	Gamma       float64 `json:"gamma"` // 0.98, as every RL baseline of the DAS paper
	// Explore is "ucb" (UCB1 with constant C) or "egreedy" (ε = Epsilon).
	Explore     string  `json:"explore"`
	C           float64 `json:"c"`
	Epsilon     float64 `json:"epsilon"`
	Episodes    int     `json:"episodes"`
	SegmentJobs int     `json:"segment_jobs"`
	ValJobs     int     `json:"val_jobs"`
}

// DefaultConfig: k = √(N/2), 50 Lloyd iterations, α 0.1, γ 0.98, UCB with
// C 0.5 (rewards are in [0, 1]), 50 episodes of 1000 jobs.
func DefaultConfig() Config {
	return Config{KMeansIters: 50, Alpha: 0.1, Gamma: 0.98, Explore: "ucb", C: 0.5, Epsilon: 0.1, Episodes: 50, SegmentJobs: 1000}
}

// Validate reports every unusable setting.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("rifling."+format, a...)) }
	if c.Clusters < 0 || c.KMeansIters < 1 {
		bad("clusters, kmeans_iters: must be ≥ 0 and ≥ 1, got %d, %d", c.Clusters, c.KMeansIters)
	}
	if !(c.Alpha > 0 && c.Alpha <= 1) || !(c.Gamma >= 0 && c.Gamma <= 1) {
		bad("alpha, gamma: must be in (0, 1] and [0, 1], got %v, %v", c.Alpha, c.Gamma)
	}
	switch c.Explore {
	case "ucb":
		if !(c.C >= 0) {
			bad("c: must be ≥ 0, got %v", c.C)
		}
	case "egreedy":
		if !(c.Epsilon >= 0 && c.Epsilon <= 1) {
			bad("epsilon: must be in [0, 1], got %v", c.Epsilon)
		}
	default:
		bad("explore: must be ucb or egreedy, got %q", c.Explore)
	}
	if c.Episodes < 0 || c.SegmentJobs < 1 || c.ValJobs < 0 {
		bad("episodes, segment_jobs, val_jobs: got %d, %d, %d", c.Episodes, c.SegmentJobs, c.ValJobs)
	}
	return errors.Join(errs...)
}

// Hash is the sha256 of the configuration's JSON.
func (c Config) Hash() string {
	h, _ := pipeline.HashJSON(c)
	return h
}

func (c Config) explorer() rl.Explorer {
	if c.Explore == "egreedy" {
		return rl.EpsilonGreedy{Epsilon: c.Epsilon}
	}
	return rl.UCB{C: c.C}
}

// stateWidth: the DAS job row and the free share of GPU, CPU, memory.
const stateWidth = daspaper.JobFeatures + 3

// Policy is a trained RIFLING policy: the k-means centroids and the
// Q-table over (group, action).
type Policy struct {
	Config    Config      `json:"config"`
	Centroids [][]float64 `json:"centroids"`
	Q         *rl.QTable  `json:"q"`
}

// group is the nearest centroid of x.
func (p *Policy) group(x []float64) int { return nearest(p.Centroids, x) }

// nearest is the index of the centroid nearest x (ties to the lowest).
func nearest(cents [][]float64, x []float64) int {
	best, bestD := 0, math.Inf(1)
	for k, c := range cents {
		d := 0.0
		for i, v := range c {
			d += (x[i] - v) * (x[i] - v)
		}
		if d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// choose picks among the feasible actions: explored with rng, greedy
// without (ties to the lowest action). It counts the choice in the table
// when exploring.
func (p *Policy) choose(s int, feasible []bool, rng *rand.Rand) int {
	q := p.Q.Values(s)
	var idx []int
	for a, ok := range feasible {
		if ok {
			idx = append(idx, a)
		}
	}
	if len(idx) == 0 {
		return -1
	}
	qs := make([]float64, len(idx))
	counts := make([]int, len(idx))
	for i, a := range idx {
		qs[i] = q[a]
		counts[i] = p.Q.N[s*numActions+a]
	}
	if rng == nil {
		return idx[rl.Argmax(qs)]
	}
	a := idx[p.Config.explorer().Choose(qs, counts, p.Q.T, rng)]
	p.Q.N[s*numActions+a]++
	p.Q.T++
	return a
}

// state is the feature vector of row r of the observation with the
// ledger's free share.
func state(rows *daspaper.Obs, r int, led *sim.Ledger, total sim.Resources) []float64 {
	x := make([]float64, stateWidth)
	copy(x, rows.Jobs[r*daspaper.JobFeatures:(r+1)*daspaper.JobFeatures])
	var free sim.Resources
	for _, f := range led.Free {
		free = free.Add(f)
	}
	x[daspaper.JobFeatures] = free.GPU / math.Max(total.GPU, 1)
	x[daspaper.JobFeatures+1] = free.CPU / math.Max(total.CPU, 1)
	x[daspaper.JobFeatures+2] = free.MemGiB / math.Max(total.MemGiB, 1)
	return x
}

// place books js by rule a, or books nothing and returns nil.
func place(led *sim.Ledger, js *sim.JobState, a int) []sim.Slot {
	slots := make([]sim.Slot, 0, len(js.Instances))
	for _, in := range js.Instances {
		k := -1
		for s := range led.Free {
			if !led.Fits(s, in.Demand) {
				continue
			}
			switch {
			case k < 0:
				k = s
			case a == ActSpread && led.Free[s].GPU > led.Free[k].GPU:
				k = s
			case a == ActBestFit && led.Free[s].GPU < led.Free[k].GPU:
				k = s
			}
			if a == ActPack {
				break
			}
		}
		if k < 0 {
			led.GiveBack(js, slots)
			return nil
		}
		led.Take(k, in.Demand)
		slots = append(slots, sim.Slot{Server: k, Socket: -1})
	}
	return slots
}

// feasible sets mask[a], for each placement rule a, to whether rule a
// could book js on led now (trying each and giving it back), and reports
// whether any could. mask[ActWait] is the caller's.
func feasible(led *sim.Ledger, js *sim.JobState, mask []bool) bool {
	fit := false
	for a := ActPack; a < ActWait; a++ {
		slots := place(led, js, a)
		mask[a] = slots != nil
		fit = fit || mask[a]
		led.GiveBack(js, slots)
	}
	return fit
}

// kmeans clusters points into k groups: k-means++ seeding from rng
// (seedCentres), then Lloyd iterations (an empty group keeps its
// centroid).
func kmeans(points [][]float64, k, iters int, rng *rand.Rand) [][]float64 {
	cents := seedCentres(points, k, rng)
	assign := make([]int, len(points))
	for i := range assign {
		assign[i] = -1
	}
	for it := 0; it < iters; it++ {
		changed := false
		for i, p := range points {
			best, bestD := 0, math.Inf(1)
			for c, cv := range cents {
				if d := sqDist(p, cv); d < bestD {
					best, bestD = c, d
				}
			}
			if assign[i] != best {
				assign[i] = best
				changed = true
			}
		}
		sums := make([][]float64, len(cents))
		counts := make([]int, len(cents))
		for c := range sums {
			sums[c] = make([]float64, len(points[0]))
		}
		for i, p := range points {
			counts[assign[i]]++
			for j, v := range p {
				sums[assign[i]][j] += v
			}
		}
		for c := range cents {
			if counts[c] > 0 {
				for j := range cents[c] {
					cents[c][j] = sums[c][j] / float64(counts[c])
				}
			}
		}
		if !changed {
			break
		}
	}
	return cents
}

// sqDist is the squared Euclidean distance between a and b.
func sqDist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return s
}

// seedCentres is k-means++ seeding: a first centre drawn uniformly, then
// each next one drawn with probability proportional to a point's squared
// distance to its nearest centre so far (d2), until min(k, len(points))
// centres or no point lies off them. d2 is kept across rounds and compared
// with the newest centre only: a min is the same in any order, NaN
// included, so each round's d2 is the minimum over all centres.
func seedCentres(points [][]float64, k int, rng *rand.Rand) [][]float64 {
	k = min(k, len(points))
	cents := [][]float64{slices.Clone(points[rng.IntN(len(points))])}
	d2 := make([]float64, len(points))
	for i := range d2 {
		d2[i] = math.Inf(1)
	}
	for len(cents) < k {
		sum := 0.0
		c := cents[len(cents)-1]
		for i, p := range points {
			d2[i] = math.Min(d2[i], sqDist(p, c))
			sum += d2[i]
		}
		if sum == 0 {
			break // fewer distinct points than k
		}
		u := rng.Float64() * sum
		j := 0
		for ; j < len(points)-1; j++ {
			u -= d2[j]
			if u <= 0 {
				break
			}
		}
		cents = append(cents, slices.Clone(points[j]))
	}
	return cents
}
