package marl

import (
	"fmt"

	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/nn"
)

// resumeState is a training's state after Ep episodes. An episode's
// random stream is derived from its index, so the parameters, Adam's
// state and the curves are all the rest depends on.
type resumeState struct {
	Ep     int
	Params [][]float64
	Opt    nn.AdamState
	Curves []training.Curve
}

func resumeKey(cfg Config) string { return "marl@" + cfg.Variant + "@" + fmt.Sprintf("%+v", cfg) }

// restore puts the parameters back before anything caches a value
// computed from them, and the optimiser's state.
func (st *resumeState) restore(pol *Policy, opt *nn.Adam) error {
	for _, err := range []error{pol.net.ps.SetValues(st.Params), opt.SetState(st.Opt)} {
		if err != nil {
			return fmt.Errorf("marl: resume: %w", err)
		}
	}
	return nil
}
