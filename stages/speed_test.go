package stages

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sim"
)

// TestSimSpeedReachesEverySpec: sim.speed sets every experiment's (and so
// every training's) Spec.Sim.Speed; left empty, each keeps its own (the
// model); sim.environment is carried and, until a stage produces one,
// must be "".
func TestSimSpeedReachesEverySpec(t *testing.T) {
	for _, speed := range []string{"", sim.SpeedModel, sim.SpeedStandalone} {
		cfg := quickConfig()
		cfg.Sim.Speed = speed
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		want := speed
		if want == "" {
			want = sim.SpeedModel
		}
		for _, id := range cfg.Eval.Experiments {
			spec, _, _, err := cfg.experimentSpec(id, "")
			if err != nil {
				t.Fatal(err)
			}
			if spec.Sim.Speed != want || spec.Sim.Environment != "" {
				t.Errorf("sim.speed %q: %s simulates at speed %q, environment %q; want %q, \"\"", speed, id, spec.Sim.Speed, spec.Sim.Environment, want)
			}
		}
	}
	cfg := quickConfig()
	cfg.Sim = SimConfig{Speed: "fast", Environment: "marl-paper"}
	err := cfg.Validate()
	for _, want := range []string{`sim.speed: must be "model" or "standalone", got "fast"`, `sim.environment: no experiment can run in environment "marl-paper" yet`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v; want it to mention %q", err, want)
		}
	}
}
