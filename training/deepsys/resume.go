package deepsys

import (
	"fmt"

	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/nn"
)

// atteState is an Atte training's state after Ep episodes. An episode's
// random stream is derived from its index, so the parameters, Adam's
// state and the curves are all the rest depends on. (DeepSys itself fits
// a speed model in epochs over logged decisions, no episodes: it has no
// resume state and reruns whole.)
type atteState struct {
	Ep     int
	Params [][]float64
	Opt    nn.AdamState
	Curves []training.Curve
}

func atteKey(cfg AtteConfig) string { return fmt.Sprintf("atte@%+v", cfg) }

// loadAtte restores the state resume holds, if any, into a and opt.
func loadAtte(resume *training.Resume, cfg AtteConfig, a *Atte, opt *nn.Adam) (atteState, error) {
	var st atteState
	_, ok, err := resume.LoadState("deepsys", atteKey(cfg), &st)
	if err != nil || !ok {
		return atteState{}, err
	}
	for _, err := range []error{a.ps.SetValues(st.Params), opt.SetState(st.Opt)} {
		if err != nil {
			return atteState{}, fmt.Errorf("deepsys: atte: resume: %w", err)
		}
	}
	return st, nil
}

// saveAtte keeps the state after ep episodes in resume (nil: nothing).
func saveAtte(resume *training.Resume, cfg AtteConfig, ep int, a *Atte, opt *nn.Adam, curves []training.Curve) error {
	if resume == nil {
		return nil
	}
	return resume.SaveState("deepsys", atteKey(cfg), ep, cfg.Episodes, atteState{Ep: ep, Params: a.ps.Values(), Opt: opt.State(), Curves: curves})
}
