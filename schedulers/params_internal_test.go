package schedulers

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestParamDefaults: every sched.<name> section's documented defaults
// decode strictly into its type and equal its Go default, which passes
// its own check; Params at the defaults write no JSON (a run's and a
// spec's hash stay), and a section away from them round-trips.
func TestParamDefaults(t *testing.T) {
	for _, d := range ParamRegistry.Decls() {
		p := reflect.New(reflect.TypeOf(d.Type.Zero()))
		dec := yaml.NewDecoder(strings.NewReader(d.Defaults))
		dec.KnownFields(true)
		if err := dec.Decode(p.Interface()); err != nil {
			t.Errorf("sched.%s: its defaults do not decode: %v", d.Type.Key(), err)
			continue
		}
		if !reflect.DeepEqual(p.Elem().Interface(), d.Default()) {
			t.Errorf("sched.%s: documented defaults %+v, Go default %+v", d.Type.Key(), p.Elem().Interface(), d.Default())
		}
	}
	var p Params
	if err := p.Validate(); err != nil {
		t.Errorf("defaults fail their checks: %v", err)
	}
	if b, err := json.Marshal(p); err != nil || string(b) != "{}" || !p.IsZero() {
		t.Errorf("Params at the defaults: JSON %s (%v), IsZero %v", b, err, p.IsZero())
	}
	small := DefaultMALOConfig()
	small.Iterations = 3
	p = MALOParams.With(p, small)
	b, err := json.Marshal(p)
	if err != nil || p.IsZero() || strings.Contains(string(b), "mosa") {
		t.Fatalf("Params with sched.malo set: JSON %s (%v)", b, err)
	}
	var back Params
	if err := json.Unmarshal(b, &back); err != nil || MALOParams.Of(back) != small || MOSAParams.Of(back) != DefaultMOSAConfig() {
		t.Errorf("read back %+v, %+v (%v)", MALOParams.Of(back), MOSAParams.Of(back), err)
	}
}

// TestParamsReachTheSchedulers: the search size of sched.malo and
// sched.mosa reaches MALO, MOSA and their oracle rows, and
// sched.tiresias the Tiresias policies; a bad value is refused naming its
// key in full.
func TestParamsReachTheSchedulers(t *testing.T) {
	small := MetaConfig{Temperature: 10, Cooling: 0.5, Iterations: 2, Population: 3, MaxJobs: 4}
	p := MOSAParams.With(MALOParams.With(Params{}, small), small)
	for _, name := range []Name{"malo", "malo-oracle"} {
		s, err := New(name, Options{Params: p})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.(*MALO).cfg; got != small {
			t.Errorf("%s searches with %+v, want %+v", name, got, small)
		}
	}
	for _, name := range []Name{"mosa", "mosa-oracle"} {
		s, err := New(name, Options{Params: p})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.(*MOSA).cfg; got != small {
			t.Errorf("%s searches with %+v, want %+v", name, got, small)
		}
	}
	tp := TiresiasSection.With(Params{}, TiresiasParams{ThresholdsGPUS: []float64{100, 200, 300}, Promote: 2})
	if got := tiresiasConfig(Options{Params: tp}); !reflect.DeepEqual(got, TiresiasConfig{ThresholdsGPUS: []float64{100, 200, 300}, Promote: 2}) {
		t.Errorf("tiresias-las gets %+v", got)
	}
	if got := tiresiasConfig(Options{}); !reflect.DeepEqual(got, TiresiasConfig{}) {
		t.Errorf("tiresias-las at the defaults gets %+v, want the reference's (zero) config", got)
	}
	bad := TiresiasSection.With(MALOParams.With(Params{}, MetaConfig{Temperature: 1, Cooling: 1, Iterations: 0, Population: 2, MaxJobs: 1}), TiresiasParams{ThresholdsGPUS: []float64{5, 2}})
	err := bad.Validate()
	for _, want := range []string{"sched.malo.iterations: must be in [1, 100000], got 0", "sched.tiresias.thresholds_gpus: must be positive"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v, want %q", err, want)
		}
	}
}
