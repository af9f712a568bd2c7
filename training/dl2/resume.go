package dl2

import (
	"fmt"
	"math/rand/v2"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/nn"
)

// resumeState is a training's state after Ep episodes of PPO (the
// warm-up is behind it: its effect is in the parameters and in the
// segment stream).
type resumeState struct {
	Ep                         int
	Params                     [][]float64
	Opt                        nn.AdamState
	Seg, Act, Upd              []byte // the PCG states of the streams
	Curves                     []training.Curve
	InitVal, WarmVal, FinalVal Evaluation
}

// streams are a training's random streams; their sources are what a
// resume checkpoint saves.
type streams struct{ seg, act, upd *rand.PCG }

func newStreams(seed uint64) streams {
	return streams{pipeline.RandSource(seed, Stage, training.KeySegments), pipeline.RandSource(seed, Stage, training.KeyActions), pipeline.RandSource(seed, Stage, training.KeyMinibatches)}
}

func resumeKey(cfg Config) string { return "dl2@" + cfg.Hash() }

func capture(ep int, res *Result, s streams) resumeState {
	return resumeState{Ep: ep, Params: res.Model.Params().Values(), Opt: res.Model.Optimizer().State(),
		Seg: training.RandState(s.seg), Act: training.RandState(s.act), Upd: training.RandState(s.upd),
		Curves: res.Curves, InitVal: res.InitVal, WarmVal: res.WarmVal, FinalVal: res.FinalVal}
}

func (st *resumeState) restore(res *Result, s streams) error {
	for _, err := range []error{res.Model.Params().SetValues(st.Params), res.Model.Optimizer().SetState(st.Opt),
		training.SetRandState(s.seg, st.Seg), training.SetRandState(s.act, st.Act), training.SetRandState(s.upd, st.Upd)} {
		if err != nil {
			return fmt.Errorf("dl2: resume: %w", err)
		}
	}
	res.Curves, res.InitVal, res.WarmVal, res.FinalVal = st.Curves, st.InitVal, st.WarmVal, st.FinalVal
	return nil
}
