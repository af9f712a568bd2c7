package sim_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// TestRestartCostForms: the number and the table read the same from text
// and JSON, a number encodes as it did when the key was a float (so
// configurations hash as before), and the zero cost is left out.
func TestRestartCostForms(t *testing.T) {
	for _, tc := range []struct {
		text, json string
		resnet     float64 // cost of a "ResNet_50" job
		other      float64 // of any other model
	}{
		{"0", `0`, 0, 0},
		{"30", `30`, 30, 30},
		{"default=30,resnet-50=25.5", `{"default":30,"resnet-50":25.5}`, 25.5, 30},
		{"ResNet_50=12", `{"default":0,"resnet-50":12}`, 12, 0},
	} {
		c, err := sim.ParseRestartCost(tc.text)
		if err != nil {
			t.Fatalf("%q: %v", tc.text, err)
		}
		if got := [2]float64{c.Of("ResNet_50"), c.Of("vgg16")}; got != [2]float64{tc.resnet, tc.other} {
			t.Errorf("%q: costs %v, want [%g %g]", tc.text, got, tc.resnet, tc.other)
		}
		b, err := json.Marshal(c)
		if err != nil || string(b) != tc.json {
			t.Errorf("%q: JSON %s (%v), want %s", tc.text, b, err, tc.json)
		}
		var back sim.RestartCost
		if err := json.Unmarshal(b, &back); err != nil || back != c {
			t.Errorf("%q: JSON round trip %v (%v), want %v", tc.text, back, err, c)
		}
		if again, err := sim.ParseRestartCost(c.String()); err != nil || again != c {
			t.Errorf("%q: text round trip via %q: %v (%v)", tc.text, c.String(), again, err)
		}
	}
	cfg := sim.DefaultConfig()
	b, _ := json.Marshal(cfg)
	if strings.Contains(string(b), "restart_s") {
		t.Errorf("zero restart cost is encoded: %s", b)
	}
	cfg.RestartS = sim.RestartFixed(30)
	if b, _ := json.Marshal(cfg); !strings.Contains(string(b), `"restart_s":30`) {
		t.Errorf("a fixed cost encodes as %s, want the plain number", b)
	}
}

// TestRestartCostErrors: each bad value is refused with the key and the
// entry named.
func TestRestartCostErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"-1", "sim.restart_s: must be >= 0"},
		{"thirty", `"thirty": want a number`},
		{"default=30,resnet-50", `entry 2 "resnet-50": want model=seconds`},
		{"vgg16=-5", "sim.restart_s.vgg16: must be >= 0"},
		{"vgg16=1,VGG16=2", `models "VGG16" and "vgg16" are the same model`},
		{"vgg16=1,vgg16=2", `model "vgg16" given twice`},
		{"default=NaN", "sim.restart_s: must be >= 0"},
	} {
		_, err := sim.ParseRestartCost(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.in, err, tc.want)
		}
	}
	var c sim.RestartCost
	for _, in := range []string{`{"vgg16":"x"}`, `{"vgg16":-1}`, `[1]`, `"-2"`} {
		if err := json.Unmarshal([]byte(in), &c); err == nil || !strings.Contains(err.Error(), "sim.restart_s") {
			t.Errorf("JSON %s: error %v, want one naming sim.restart_s", in, err)
		}
	}
}

// TestRestartPerModel: a resumed job pays its own model's cost; a model
// the table does not name pays the default.
func TestRestartPerModel(t *testing.T) {
	long := twoGPUJob("long", 0, 100)
	long.Model = "vgg16"
	jobs := []datasets.Job{long, twoGPUJob("short", 10, 20)}
	for _, tc := range []struct {
		cost    string
		longEnd float64
	}{
		{"default=30", 150},
		{"default=30,vgg16=7", 127},
		{"resnet-50=7", 120},
	} {
		cfg := sim.DefaultConfig()
		cfg.Speed = sim.SpeedStandalone
		cfg.Trigger = sim.TriggerEvery
		var err error
		if cfg.RestartS, err = sim.ParseRestartCost(tc.cost); err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(context.Background(), oneGPUServer(t), jobs, shortestFirst{}, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Jobs[0].FinishS; got != tc.longEnd {
			t.Errorf("%s: long job ends at %g, want %g", tc.cost, got, tc.longEnd)
		}
	}
}
