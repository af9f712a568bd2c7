package plan

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
)

// speedFiles writes a fitted model and two environments into a temporary
// directory: "over-default" calibrated over the simulator's default model,
// "over-fit" over the fitted one.
func speedFiles(t *testing.T) (fit, overDefault, overFit string) {
	t.Helper()
	dir := t.TempDir()
	fit = filepath.Join(dir, "model.json")
	b, err := json.Marshal(fitting.DefaultModel())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fit, b, 0o644); err != nil {
		t.Fatal(err)
	}
	sum, _, err := pipeline.HashFile(fit)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, base string) string {
		e := sim.NeutralEnvironment()
		e.Name, e.BaseModel, e.InterferenceScale = name, base, 2
		path := filepath.Join(dir, name+".json")
		if err := sim.WriteEnvironment(path, &e); err != nil {
			t.Fatal(err)
		}
		return path
	}
	return fit, write("over-default", ""), write("over-fit", sum)
}

func TestSpeedModelResolve(t *testing.T) {
	fit, overDefault, overFit := speedFiles(t)
	missing := filepath.Join(t.TempDir(), "none.json")
	for _, c := range []struct {
		name string
		m    SpeedModel
		src  Sources
		// base, env: whether Speeds has a base model and an environment.
		base, env bool
		// err: the error wanted (nil none); source: a SourceError of the
		// environment (true) or the fitted model (false).
		err    error
		source *bool
	}{
		{name: "default", m: SpeedModel{}},
		{name: "fitted", m: SpeedModel{Fitted: true}, src: Sources{Fit: fit}, base: true},
		{name: "fitted, no file: the default", m: SpeedModel{Fitted: true}},
		{name: "environment over default", m: SpeedModel{Environment: "over-default"}, src: Sources{Environment: overDefault}, env: true},
		{name: "environment over fit", m: SpeedModel{Fitted: true, Environment: "over-fit"}, src: Sources{Fit: fit, Environment: overFit}, base: true, env: true},
		{name: "unnamed environment taken from its file", m: SpeedModel{}, src: Sources{Environment: overDefault}, env: true},
		{name: "environment without its file", m: SpeedModel{Environment: "over-default"}, err: ErrNoEnvironment},
		{name: "another environment", m: SpeedModel{Environment: "over-fit"}, src: Sources{Environment: overDefault}, err: ErrOtherEnvironment, source: ptr(true)},
		{name: "environment over another base", m: SpeedModel{Environment: "over-fit"}, src: Sources{Environment: overFit}, err: sim.ErrBadEnvironment, source: ptr(true)},
		{name: "missing model", m: SpeedModel{Fitted: true}, src: Sources{Fit: missing}, err: os.ErrNotExist, source: ptr(false)},
		{name: "missing environment", m: SpeedModel{Environment: "x"}, src: Sources{Environment: missing}, err: os.ErrNotExist, source: ptr(true)},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := c.m.Resolve(c.src)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("error %v, want %v", err, c.err)
				}
				var se *SourceError
				if got := errors.As(err, &se); got != (c.source != nil) || got && se.Environment != *c.source {
					t.Errorf("error %#v: source error %v, want %v", err, got, c.source)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (s.Base != nil) != c.base || (s.Environment != nil) != c.env {
				t.Errorf("base %v, environment %v; want base %v, environment %v", s.Base, s.Environment, c.base, c.env)
			}
			if !c.env && s.Interference != s.Base {
				t.Errorf("without an environment the interference is the base model")
			}
			if c.env && s.Interference == nil {
				t.Errorf("an environment gives the simulator a model")
			}
		})
	}
}

func TestSpeedModelInputs(t *testing.T) {
	m := SpeedModel{Fitted: true, Environment: "marl-paper"}
	want := []string{FitModel, "fit/environment-marl-paper.json"}
	if got := m.Inputs(); !slices.Equal(got, want) {
		t.Errorf("Inputs %v, want %v", got, want)
	}
	src := m.RunSources(func(a string) string { return "/run/" + a })
	if src.Fit != "/run/"+want[0] || src.Environment != "/run/"+want[1] {
		t.Errorf("RunSources %+v", src)
	}
	if got := (SpeedModel{}).Inputs(); len(got) != 0 {
		t.Errorf("the default speed model reads %v", got)
	}
}

func ptr[T any](v T) *T { return &v }

// TestExperimentResolve: an experiment whose configuration names no
// environment simulates in the one of the file it is given, and its spec
// says so; one resolved without a file keeps its spec; an error leaves it
// as it was.
func TestExperimentResolve(t *testing.T) {
	_, overDefault, overFit := speedFiles(t)
	var x Experiment
	if _, err := x.Resolve(Sources{}); err != nil || x.Spec.Sim.Environment != "" {
		t.Fatalf("no file: environment %q, error %v; want none", x.Spec.Sim.Environment, err)
	}
	s, err := x.Resolve(Sources{Environment: overDefault})
	if err != nil || s.Environment == nil || x.Spec.Sim.Environment != "over-default" {
		t.Fatalf("environment file: spec's environment %q, error %v; want over-default", x.Spec.Sim.Environment, err)
	}
	if _, err := x.Resolve(Sources{Environment: overFit}); !errors.Is(err, ErrOtherEnvironment) || x.Spec.Sim.Environment != "over-default" {
		t.Errorf("another environment's file: spec's environment %q, error %v; want over-default and %v", x.Spec.Sim.Environment, err, ErrOtherEnvironment)
	}
}
