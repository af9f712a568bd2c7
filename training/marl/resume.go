package marl

import (
	"fmt"
	"strings"

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

// resumeKey names the training whose state is kept: its configuration,
// written as before Config had Rollouts, Lag and Precision (so that a
// state kept then still resumes) and followed by the rollouts per update
// when more than one, the update's lag when it has one and the actors'
// precision when it is float32.
func resumeKey(cfg Config) string {
	r, lag, p := cfg.rollouts(), cfg.Lag, cfg.Precision
	cfg.Rollouts, cfg.Lag, cfg.Precision = 0, 0, ""
	k := fmt.Sprintf("%+v", cfg)
	k = strings.Replace(k, " Rollouts:0 Lag:0 Precision:}", "}", 1)
	if r > 1 {
		k += fmt.Sprintf("@rollouts=%d", r)
	}
	if lag > 0 {
		k += fmt.Sprintf("@lag=%d", lag)
	}
	if p == PrecisionFloat32 {
		k += "@precision=" + p
	}
	return "marl@" + cfg.Variant + "@" + k
}

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
