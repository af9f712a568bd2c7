package stages

import (
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/plan"
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
			x, err := cfg.Plan().Experiment(id, "")
			spec := x.Spec
			if err != nil {
				t.Fatal(err)
			}
			if spec.Sim.Speed != want || spec.Sim.Environment != "" {
				t.Errorf("sim.speed %q: %s simulates at speed %q, environment %q; want %q, \"\"", speed, id, spec.Sim.Speed, spec.Sim.Environment, want)
			}
		}
	}
	cfg := quickConfig()
	cfg.Sim = plan.SimConfig{Speed: "fast", Environment: "philly-paper"}
	err := cfg.Validate()
	for _, want := range []string{`sim.speed: must be "model" or "standalone", got "fast"`, `sim.environment: no stage produces environment "philly-paper"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v; want it to mention %q", err, want)
		}
	}
}

// TestEnvironmentReachesItsPaper: sim.environment "paper" runs the MARL
// experiments and the training of their learned schedulers in marl-paper
// and the DAS ones in das-paper, each reading the calibrate stage's file;
// an environment's name does so for its own paper's only, and leaves the
// other paper's at the simulator's defaults.
func TestEnvironmentReachesItsPaper(t *testing.T) {
	for _, setting := range []string{plan.PaperEnvironments, "marl-paper", "das-paper"} {
		cfg := quickConfig()
		cfg.Sim.Environment = setting
		evaluation.CalibrationSection.Set(&cfg.Eval, evaluation.CalibrationConfig{DAS: true})
		evaluation.DASTable1Section.Edit(&cfg.Eval, func(s *evaluation.DASTable1Config) { s.Schedulers = []string{"fifo-ff", "rifling"} })
		evaluation.MARLArrivalsSection.Edit(&cfg.Eval, func(s *evaluation.MARLArrivalsConfig) { s.Schedulers = []string{"lb", "marl-device"} })
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		// envOf is the environment stage or experiment name runs in.
		envOf := func(name string) string {
			env := "das-paper"
			if strings.Contains(name, "marl-") {
				env = "marl-paper"
			}
			if setting == plan.PaperEnvironments || setting == env {
				return env
			}
			return ""
		}
		for _, id := range cfg.Eval.Experiments {
			x, err := cfg.Plan().Experiment(id, "")
			spec, inputs := x.Spec, x.Inputs
			if err != nil {
				t.Fatal(err)
			}
			want := envOf(id)
			for _, name := range []string{"marl-paper", "das-paper"} {
				if slices.Contains(inputs, plan.EnvironmentFile(name)) != (want == name) {
					t.Errorf("%s %s: inputs %v; want %s's file only", setting, id, inputs, want)
				}
			}
			if spec.Sim.Environment != want {
				t.Errorf("%s %s: environment %q; want %q", setting, id, spec.Sim.Environment, want)
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
			want := envOf(s.Name())
			for _, name := range []string{"marl-paper", "das-paper"} {
				if slices.Contains(s.Inputs(), plan.EnvironmentFile(name)) != (want == name) {
					t.Errorf("%s: %s reads %v; want %q's file only", setting, s.Name(), s.Inputs(), want)
				}
			}
		}
		if trains < 2 {
			t.Errorf("%s: %d training stages, want rifling's and marl-device's", setting, trains)
		}
	}
}
