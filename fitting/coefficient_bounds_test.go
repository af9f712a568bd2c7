package fitting

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadModelRefusesHugeCoefficients: a model.json whose coefficients
// are 1e308 was finite, so loaded, and predicted +Inf slowdowns (fit
// --model, eval --interference; issue 50); it is refused naming the file
// and the coefficient, and the default model's predictions stay finite.
func TestLoadModelRefusesHugeCoefficients(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		set  func(m *InterferenceModel)
	}{
		{"alpha1", func(m *InterferenceModel) { m.Alpha1 = 1e308 }},
		{"alpha2", func(m *InterferenceModel) { m.Alpha2 = 1e308 }},
		{"alpha3", func(m *InterferenceModel) { m.Alpha3 = -1e308 }},
		{"beta1", func(m *InterferenceModel) { m.Beta1 = 1e308 }},
		{"beta2", func(m *InterferenceModel) { m.Beta2 = 1e308 }},
		{"lambda", func(m *InterferenceModel) { m.Lambda = -1e308 }},
	} {
		m := DefaultModel()
		c.set(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, c.name+".json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = LoadModel(p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.name+":") {
			t.Errorf("%s = 1e308: %v, want an error naming %s and %s", c.name, err, p, c.name)
		}
	}
	m := DefaultModel()
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	load := Load{CPUCores: 64, PCIeGbps: 128}
	if s := m.Predict(load, []Load{load, load}, []Load{load}, 8); math.IsInf(s, 0) || math.IsNaN(s) {
		t.Errorf("the default model predicts %v", s)
	}
}
