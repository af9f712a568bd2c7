package evaluation

import (
	"strings"
	"testing"
)

// validSensitivity is a listed sensitivity section that validates.
func validSensitivity() Config {
	c := Config{Experiments: []string{Sensitivity}, Seeds: 1}
	MARLArrivalsSection.Set(&c, MARLArrivalsConfig{K: 4, Intervals: 1})
	DASTable1Section.Set(&c, DASTable1Config{MaxJobs: 1, TestFraction: 0.5})
	SensitivitySection.Set(&c, SensitivityConfig{Parts: []string{SensitivityMARLDevice, SensitivityDAS}, CommScales: []float64{0.5, 2}, InterferenceScales: []float64{1},
		MARLDevice: SensitivityMARLConfig{Heuristics: MARLHeuristics, K: 4, Intervals: 1, TrainIntervals: 1},
		DAS:        SensitivityDASConfig{Heuristics: []string{"fifo-firstfit"}, Cluster: "small", Episodes: 1}})
	return c
}

// TestSensitivityConfig: each bad key of eval.sensitivity is rejected by
// name; an unlisted experiment's grid and sizes are not checked.
func TestSensitivityConfig(t *testing.T) {
	for _, tc := range []struct {
		edit func(*SensitivityConfig)
		want string
	}{
		{func(s *SensitivityConfig) { s.Parts = nil }, "eval.sensitivity.parts: give at least one"},
		{func(s *SensitivityConfig) { s.Parts = []string{"marl-single"} }, `eval.sensitivity.parts[0]: unknown part "marl-single"`},
		{func(s *SensitivityConfig) { s.Parts = []string{"das", "das"} }, `eval.sensitivity.parts[1]: "das" listed twice`},
		{func(s *SensitivityConfig) { s.CommScales = nil }, "eval.sensitivity.comm_scales: give at least one"},
		{func(s *SensitivityConfig) { s.CommScales = []float64{2, 1} }, "eval.sensitivity.comm_scales[1]: must be greater"},
		{func(s *SensitivityConfig) { s.InterferenceScales = []float64{0} }, "eval.sensitivity.interference_scales[0]: must be in [0.01, 100]"},
		{func(s *SensitivityConfig) { s.InterferenceScales = []float64{1e300} }, "eval.sensitivity.interference_scales[0]"},
		{func(s *SensitivityConfig) { s.MARLDevice.Heuristics = nil }, "eval.sensitivity.marl_device.heuristics: give at least one"},
		{func(s *SensitivityConfig) { s.MARLDevice.Heuristics = []string{"oracle"} }, "eval.sensitivity.marl_device.heuristics[0]"},
		{func(s *SensitivityConfig) { s.MARLDevice.K = 5 }, "eval.sensitivity.marl_device.k"},
		{func(s *SensitivityConfig) { s.MARLDevice.TrainIntervals = 0 }, "eval.sensitivity.marl_device.intervals, train_intervals"},
		{func(s *SensitivityConfig) { s.MARLDevice.Episodes = -1 }, "eval.sensitivity.marl_device.episodes"},
		{func(s *SensitivityConfig) { s.DAS.Cluster = "huge" }, "eval.sensitivity.das.cluster"},
		{func(s *SensitivityConfig) { s.DAS.Episodes = 0 }, "eval.sensitivity.das.episodes"},
	} {
		c := validSensitivity()
		if err := c.Validate(); err != nil {
			t.Fatalf("base config: %v", err)
		}
		SensitivitySection.Edit(&c, tc.edit)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
	// Not listed: only the parts' names are checked.
	c := validSensitivity()
	c.Experiments = nil
	SensitivitySection.Edit(&c, func(s *SensitivityConfig) { s.CommScales, s.DAS.Cluster = nil, "" })
	if err := c.Validate(); err != nil {
		t.Errorf("unlisted: %v", err)
	}
	SensitivitySection.Edit(&c, func(s *SensitivityConfig) { s.Parts = []string{"x"} })
	if err := c.Validate(); err == nil {
		t.Error("unlisted: unknown part accepted")
	}
}
