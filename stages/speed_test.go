package stages

import (
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sim"
)

// TestSimSpeedReachesEverySpec: sim.speed sets every experiment's (and so
// every training's) Spec.Sim.Speed; left empty, each keeps its own (the
// model); sim.environment must name an environment a stage produces.
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
	cfg.Sim = SimConfig{Speed: "fast", Environment: "das-paper"}
	err := cfg.Validate()
	for _, want := range []string{`sim.speed: must be "model" or "standalone", got "fast"`, `sim.environment: no stage produces environment "das-paper"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v; want it to mention %q", err, want)
		}
	}
}

// TestEnvironmentReachesItsPaper: sim.environment "paper" (or the
// environment's name) runs the MARL experiments and the training of their
// learned schedulers in marl-paper, reading the calibrate stage's file,
// and leaves the DAS experiments (no environment of theirs yet) and their
// trainings at the simulator's defaults.
func TestEnvironmentReachesItsPaper(t *testing.T) {
	envFile := EnvironmentFile("marl-paper")
	for _, setting := range []string{PaperEnvironments, "marl-paper"} {
		cfg := quickConfig()
		cfg.Sim.Environment = setting
		cfg.Eval.DASTable1.Schedulers = []string{"fifo-ff", "rifling"}
		cfg.Eval.MARLArrivals.Schedulers = []string{"lb", "marl-device"}
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, id := range cfg.Eval.Experiments {
			spec, inputs, _, err := cfg.experimentSpec(id, "")
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if strings.HasPrefix(id, "marl-") {
				want = "marl-paper"
			}
			if spec.Sim.Environment != want || slices.Contains(inputs, envFile) != (want != "") {
				t.Errorf("%s %s: environment %q, inputs %v; want %q", setting, id, spec.Sim.Environment, inputs, want)
			}
		}
		dag, err := Build(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var trains int
		for _, s := range dag {
			if !strings.HasPrefix(s.Name(), "train-") {
				continue
			}
			trains++
			marl := strings.HasPrefix(s.Name(), "train-marl-")
			if slices.Contains(s.Inputs(), envFile) != marl {
				t.Errorf("%s: %s reads %v", setting, s.Name(), s.Inputs())
			}
		}
		if trains < 2 {
			t.Errorf("%s: %d training stages, want rifling's and marl-device's", setting, trains)
		}
	}
}
