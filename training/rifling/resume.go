package rifling

import (
	"fmt"
	"math/rand/v2"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/rl"
)

// resumeState is a training's state after Ep episodes: the policy (the
// state groups and the table learned so far), the streams' states and
// the curves.
type resumeState struct {
	Ep                int
	Centroids         [][]float64
	Q                 rl.QTable
	Seg, Act          []byte // the PCG states of the streams
	Curves            []training.Curve
	InitVal, FinalVal Evaluation
}

// streams are the episodes' random streams.
type streams struct{ seg, act *rand.PCG }

func newStreams(seed uint64) streams {
	return streams{pipeline.RandSource(seed, Stage, training.KeySegments), pipeline.RandSource(seed, Stage, training.KeyActions)}
}

func resumeKey(cfg Config) string { return "rifling@" + cfg.Hash() }

func capture(ep int, res *Result, s streams) resumeState {
	return resumeState{Ep: ep, Centroids: res.Policy.Centroids, Q: *res.Policy.Q,
		Seg: training.RandState(s.seg), Act: training.RandState(s.act), Curves: res.Curves, InitVal: res.InitVal, FinalVal: res.FinalVal}
}

// restore makes the policy of cfg that st saved, and puts the streams
// and results back.
func (st *resumeState) restore(cfg Config, res *Result, s streams) error {
	q := st.Q
	if q.States != len(st.Centroids) || len(q.Q) != q.States*q.Actions || len(q.N) != len(q.Q) {
		return fmt.Errorf("rifling: resume: %w: a %d×%d table for %d groups", training.ErrResumeMismatch, q.States, q.Actions, len(st.Centroids))
	}
	for _, err := range []error{training.SetRandState(s.seg, st.Seg), training.SetRandState(s.act, st.Act)} {
		if err != nil {
			return fmt.Errorf("rifling: resume: %w", err)
		}
	}
	res.Policy = &Policy{Config: cfg, Centroids: st.Centroids, Q: &q}
	res.Curves, res.InitVal, res.FinalVal = st.Curves, st.InitVal, st.FinalVal
	return nil
}
