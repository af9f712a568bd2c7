package sim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sim"
)

// TestEnvironmentRefusesHugeCoefficients: a GPU-sharing term of 1e308 in
// an environment file was finite, so accepted, and predicted speeds of
// +Inf (issue 50); each is refused naming the file and the parameter.
func TestEnvironmentRefusesHugeCoefficients(t *testing.T) {
	dir := t.TempDir()
	for name, term := range map[string]string{
		"median":          `{"form": "median", "params": [1e308]}`,
		"linear":          `{"form": "linear", "params": [1, 1e308, 0]}`,
		"saturating rate": `{"form": "saturating", "params": [1, 0.5, -1e3]}`,
		"negative":        `{"form": "bilinear", "params": [1, 0, -1e300, 0]}`,
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
		body := `{"name": "x", "source": "y", "interference_scale": 1, "comm_scale": 1, "ps_share": 1, "gpu_share_term": ` + term +
			`, "gpu_profiles": [{"model": "m", "gpu_util": 0.5}]}`
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := sim.ReadEnvironment(p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "gpu_share_term.params[") {
			t.Errorf("%s: %v, want an error naming %s and the parameter", name, err, p)
		}
	}
	for _, m := range []sim.ExpLinear{{Alpha1: 1e308}, {Alpha2: 1e3}, {Beta1: -1e308}, {Lambda2: 1e300}} {
		if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "outside") {
			t.Errorf("%+v: %v, want refused as outside its range", m, err)
		}
	}
	if err := sim.DefaultInterference().Validate(); err != nil {
		t.Errorf("the default model: %v", err)
	}
}
