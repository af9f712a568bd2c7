package das

import (
	"fmt"
	"math/rand/v2"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/nn"
	"github.com/schedlab/schedlab/training/rl"
)

// resumeState is a training's state between two episodes (Train with
// TrainOptions.Resume): the runs of the learning rates already trained,
// and the run in progress.
type resumeState struct {
	Done []doneRun
	Cur  runState
}

// doneRun is a finished run (RunResult without its model, whose values
// are Params).
type doneRun struct {
	LR                float64
	Params            [][]float64
	Curves            []training.Curve
	InitVal, FinalVal Evaluation
}

// runState is everything the rest of a run depends on after Ep episodes.
type runState struct {
	Ep                        int
	Params, Critic, Target    [][]float64
	OrdOpt, PlcOpt, CriticOpt nn.AdamState
	Updates                   int
	Seg, Act, Upd             []byte // the PCG states of the run's streams
	Curves                    []training.Curve
	InitVal, FinalVal         Evaluation
	A1                        *a1State `json:",omitempty"` // TrainerAlgorithm1's
}

// resumeKey names a training's state: the variant and its architecture.
func resumeKey(cfg Config) string { return cfg.Variant + "@" + cfg.Hash() }

// runStreams are a run's random streams; their sources are what a resume
// checkpoint saves.
type runStreams struct{ seg, act, upd *rand.PCG }

func newRunStreams(seed uint64, key string) runStreams {
	k := pipeline.Key(key)
	return runStreams{pipeline.RandSource(seed, Stage, training.KeySegments, k), pipeline.RandSource(seed, Stage, training.KeyActions, k), pipeline.RandSource(seed, Stage, training.KeyMinibatches, k)}
}

// capture is the run's state after ep episodes.
func capture(ep int, run *RunResult, ord *orderAgent, plc *placeAgent, crit *critic, mappo *rl.MAPPO[*Obs], a1 *algorithm1, s runStreams) runState {
	st := runState{Ep: ep, Params: run.Model.ps.Values(), Critic: crit.ps.Values(), Target: crit.tps.Values(),
		OrdOpt: ord.opt.State(), PlcOpt: plc.opt.State(), CriticOpt: crit.opt.State(), Updates: mappo.Updates(),
		Seg: training.RandState(s.seg), Act: training.RandState(s.act), Upd: training.RandState(s.upd),
		Curves: run.Curves, InitVal: run.InitVal, FinalVal: run.FinalVal}
	if a1 != nil {
		st.A1 = a1.state()
	}
	return st
}

// restore puts st back into a run freshly built at the same learning
// rate.
func (st *runState) restore(run *RunResult, ord *orderAgent, plc *placeAgent, crit *critic, mappo *rl.MAPPO[*Obs], a1 *algorithm1, s runStreams) error {
	if a1 != nil {
		if err := a1.restore(st.A1); err != nil {
			return fmt.Errorf("das: resume: %w", err)
		}
	}
	for _, err := range []error{run.Model.ps.SetValues(st.Params), crit.ps.SetValues(st.Critic), crit.tps.SetValues(st.Target),
		ord.opt.SetState(st.OrdOpt), plc.opt.SetState(st.PlcOpt), crit.opt.SetState(st.CriticOpt),
		training.SetRandState(s.seg, st.Seg), training.SetRandState(s.act, st.Act), training.SetRandState(s.upd, st.Upd)} {
		if err != nil {
			return fmt.Errorf("das: resume: %w", err)
		}
	}
	mappo.SetUpdates(st.Updates)
	run.Curves, run.InitVal, run.FinalVal = st.Curves, st.InitVal, st.FinalVal
	return nil
}

// finished turns a saved finished run back into its result.
func (d doneRun) finished(cfg Config, seed uint64) (RunResult, error) {
	m := NewModel(cfg, pipeline.Rand(seed, Stage, training.KeyInit))
	if err := m.ps.SetValues(d.Params); err != nil {
		return RunResult{}, fmt.Errorf("das: resume: %w", err)
	}
	return RunResult{LR: d.LR, Model: m, Curves: d.Curves, InitVal: d.InitVal, FinalVal: d.FinalVal}, nil
}
