package schedulers

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/big"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"github.com/schedlab/schedlab/datasets"
)

// ErrNeedsData: a policy needs an input file that was neither named nor
// found under Options.DataDir.
var ErrNeedsData = errors.New("policy input not found")

// GittinsSamplesFile is where the shared data directory keeps the job
// GPU-time samples of the reference's Gittins policy (the YARN trace's).
const GittinsSamplesFile = "tiresias/yarn-gput1000.csv"

// NewGittins returns Tiresias' discretised 2D-LAS with the Gittins index
// ordering each queue (Gu et al., NSDI 2019, §3.2, "Gittins index"; the
// reference is the Tiresias simulator, SymbioticLab/Tiresias
// simulator/run_sim.py, schedule "dlas-gpu-gittins": dlas_sim_jobs with
// get_gittins_index and cal_r_gittins_index). It is LAS (queues,
// thresholds, demotions, the promote knob) except that within a queue jobs
// go by their Gittins index, highest first, then by earlier submission:
// the index of a job that has attained a GPU-seconds is, over the
// distribution of job GPU-times learned from the samples (jobs of a past
// trace, not this one), the chance of finishing within the next Δ
// GPU-seconds divided by the expected service spent until then. It reads no
// duration of the jobs it schedules.
//
// The reference's arithmetic is kept: the index is tabulated at each
// sample s for attained service s − 1, and a job's index is that of the
// first sample above its attained service (0 beyond the largest); the
// expected service is an integer mean (Python 2 division); p and E are
// rounded to 5 decimals and the index (p × 10⁶ / E) to 4, half away from
// zero as Python 2's round.
func NewGittins(cfg TiresiasConfig, dataDir string) (*LAS, error) {
	p, err := NewLAS(cfg)
	if err != nil {
		return nil, err
	}
	path := cfg.GittinsSamples
	if path == "" {
		if dataDir == "" {
			return nil, fmt.Errorf("the Gittins index needs job GPU-time samples: %w (name a file, or a data directory holding tiresias/yarn-gput1000.csv)", ErrNeedsData)
		}
		path = filepath.Join(dataDir, filepath.FromSlash(GittinsSamplesFile))
	}
	samples, err := readSamples(path)
	if err != nil {
		return nil, err
	}
	delta := cfg.GittinsDeltaGPUS
	if delta == 0 {
		delta = 3250
	}
	p.gittins = newGittinsIndex(samples, delta)
	p.name = "tiresias-gittins"
	return p, nil
}

// readSamples reads the duration column of a samples file: whole numbers.
func readSamples(path string) ([]float64, error) {
	c, err := datasets.OpenCSV(path, datasets.CSVOptions{})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("gittins samples %s: %w: %w", path, ErrNeedsData, err)
		}
		return nil, fmt.Errorf("gittins samples: %w", err)
	}
	defer c.Close()
	col, err := c.Columns("duration")
	if err != nil {
		return nil, err
	}
	var out []float64
	for {
		row, err := c.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, row.Line, err)
		}
		v, err := row.Count(col[0], "duration", 0, 1<<53)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, row.Line, err)
		}
		out = append(out, float64(v))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no samples", path)
	}
	return out, nil
}

// gittinsIndex is the reference's table: sorted samples and the index at
// each.
type gittinsIndex struct {
	data []float64 // sorted samples
	gi   []float64 // gi[k]: the index for attained service just below data[k]
}

func newGittinsIndex(samples []float64, delta float64) *gittinsIndex {
	data := slices.Clone(samples)
	slices.Sort(data)
	g := &gittinsIndex{data: data, gi: make([]float64, len(data))}
	for k, v := range data {
		g.gi[k] = g.compute(v-1, delta)
	}
	return g
}

// above is the first k with data[k] > a, len(data) if none.
func (g *gittinsIndex) above(a float64) int {
	return sort.Search(len(g.data), func(k int) bool { return g.data[k] > a })
}

// compute is cal_r_gittins_index at attained service a.
func (g *gittinsIndex) compute(a, delta float64) float64 {
	n := len(g.data)
	maxv := g.data[n-1]
	if a > maxv-1 {
		return 0
	}
	idx := g.above(a)
	idxDelta := n - 1
	if next := a + delta; next <= maxv-1 {
		idxDelta = g.above(next)
	}
	p := pyRound(float64(idxDelta-idx)/float64(n-idx), 5)
	var sum float64
	for _, v := range g.data[idx:idxDelta] {
		sum += v
	}
	sum += delta * float64(n-idxDelta)
	e := pyRound(math.Floor(sum/float64(n-idx)), 5)
	if e == 0 {
		return math.Inf(1) // the reference divides by zero here
	}
	return pyRound(p*1e6/e, 4)
}

// rank is get_gittins_index: the index of the first sample above a, 0
// beyond the largest.
func (g *gittinsIndex) rank(a float64) float64 {
	k := g.above(a)
	if k == len(g.data) {
		return 0 // the reference's sentinel after the largest sample
	}
	return g.gi[k]
}

// pyRound is Python 2.7's round(x, n): the exact binary value of x rounded
// to n decimals, halves away from zero, read back as the nearest float.
func pyRound(x float64, n int) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	if y := math.Abs(x) * math.Pow10(n); y < 1<<52 {
		// Far from a half, the float product rounds the same way as the
		// exact value: only near-ties need exact arithmetic.
		if f := y - math.Floor(y); math.Abs(f-0.5) > 1e-6 {
			s := strconv.FormatFloat(math.Floor(y+0.5), 'f', 0, 64)
			for len(s) <= n {
				s = "0" + s
			}
			v, _ := strconv.ParseFloat(s[:len(s)-n]+"."+s[len(s)-n:], 64)
			return math.Copysign(v, x)
		}
	}
	scale := new(big.Float).SetPrec(256).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil))
	y := new(big.Float).SetPrec(256).SetFloat64(math.Abs(x))
	y.Mul(y, scale)
	i, _ := y.Int(nil) // truncated
	frac := new(big.Float).SetPrec(256).Sub(y, new(big.Float).SetPrec(256).SetInt(i))
	if frac.Cmp(big.NewFloat(0.5)) >= 0 {
		i.Add(i, big.NewInt(1))
	}
	s := i.String()
	for len(s) <= n {
		s = "0" + s
	}
	s = s[:len(s)-n] + "." + s[len(s)-n:]
	v, _ := strconv.ParseFloat(s, 64)
	if x < 0 {
		v = -v
	}
	return v
}
