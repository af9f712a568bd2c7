package training_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
	_ "github.com/schedlab/schedlab/training/families"
	"github.com/schedlab/schedlab/training/marl"
)

func TestFamiliesRegistered(t *testing.T) {
	want := map[string][]string{
		"das":         {"das", "da", "da+mc", "da+rwgp", "das-mappo", "das-h1", "das-h2", "das-h4", "das-h8", "das-tau4", "das-tau6", "das-tau8", "das-tau10"},
		"dl2":         {"dl2"},
		"dl2-das":     {"dl2-das"},
		"rifling":     {"rifling"},
		"rifling-ppo": {"rifling-ppo"},
		"marl":        {"marl-device", "marl-server", "marl-device-paper", "marl-single"},
		"deepsys":     {"deepsys", "atte"},
	}
	if got := training.Families(); !slices.Equal(got, []string{"das", "deepsys", "dl2", "dl2-das", "marl", "rifling", "rifling-ppo"}) {
		t.Fatalf("families %v", got)
	}
	for name, vs := range want {
		f, ok := training.Lookup(name)
		if !ok {
			t.Fatalf("family %s not registered", name)
		}
		var got []string
		for _, v := range f.Variants() {
			got = append(got, string(v.Info.Name))
			info, ok := schedulers.Lookup(string(v.Info.Name))
			if !ok || info.Family != name || info.Display == "" {
				t.Errorf("%s: scheduler registry has %+v", v.Info.Name, info)
			}
			files := f.Files(v.ModelName())
			if len(files) == 0 {
				t.Errorf("%s: no model files", v.Info.Name)
			}
		}
		if !slices.Equal(got, vs) {
			t.Errorf("%s: variants %v, want %v", name, got, vs)
		}
		sections := daspaper.Section.With(training.Sections{}, daspaper.Settings{Cluster: "small", Episodes: 2, SegmentJobs: 100, LearningRates: []float64{1e-4}, ValJobs: 50})
		sections = marl.Section.With(sections, marl.Settings{Episodes: 3, AtteEpisodes: 4, Intervals: 5})
		cfg := f.Configure(sections)
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s: config invalid: %v", name, err)
		}
		// Configure reads its section's values (none of them defaults).
		if b, err := json.Marshal(cfg); err != nil || !strings.ContainsAny(string(b), "234") {
			t.Errorf("%s: config %s (%v) reads nothing of its section", name, b, err)
		}
	}
}

// TestLearnedNamesHaveFamily: every learned scheduler the registry knows
// is a variant of a registered family, and none is a heuristic.
func TestLearnedNamesHaveFamily(t *testing.T) {
	if len(schedulers.LearnedNames()) != 23 { // 4 das + das-mappo + 8 das-tuning + dl2, dl2-das, rifling, rifling-ppo + 4 marl + 2 deepsys
		t.Fatalf("learned names %v", schedulers.LearnedNames())
	}
	for _, n := range schedulers.LearnedNames() {
		f, v, ok := training.VariantOf(n)
		if !ok || v.Info.Name != n {
			t.Errorf("%s belongs to no family", n)
			continue
		}
		if _, mv, ok := training.VariantOf(v.ModelName()); !ok || mv.ModelName() != v.ModelName() {
			t.Errorf("%s loads %s, which is not a model of %s", n, v.ModelName(), f.Name())
		}
	}
	if _, _, ok := training.VariantOf("fifo-firstfit"); ok {
		t.Error("a heuristic has a family")
	}
}

// TestNewNeedsModel: schedulers.New reaches a family's Open through the
// registry, and fails on a directory without a model.
func TestNewNeedsModel(t *testing.T) {
	for _, n := range []string{"das", "dl2", "rifling", "marl-device", "atte"} {
		_, err := schedulers.New(schedulers.Name(n), schedulers.Options{Model: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), n) {
			t.Errorf("%s from an empty directory: %v", n, err)
		}
	}
}

type fake struct{ name, variant string }

func (f fake) Name() string                                    { return f.name }
func (f fake) Source() training.Source                         { return training.SourceMARL }
func (f fake) Section() string                                 { return "marl" }
func (f fake) Configure(training.Sections) training.Config     { return nil }
func (f fake) Files(schedulers.Name) []string                  { return []string{"m"} }
func (f fake) Train(context.Context, training.TrainSpec) error { return nil }
func (f fake) Open(schedulers.Name, string, schedulers.Options) (sim.Scheduler, error) {
	return nil, nil
}
func (f fake) Variants() []training.Variant {
	return []training.Variant{{Info: schedulers.Info{Name: schedulers.Name(f.variant)}}}
}

func TestRegisterPanicsOnDuplicates(t *testing.T) {
	for _, f := range []fake{{"das", "fake-a"}, {"fake-b", "marl-device"}, {"fake-c", "fifo-firstfit"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%+v) did not panic", f)
				}
			}()
			training.Register(f)
		}()
		if _, ok := training.Lookup(f.name); ok && f.name != "das" {
			t.Errorf("a panicking Register left family %s behind", f.name)
		}
	}
}

// Example lists the registered learned families, the schedulers each
// provides and the files of a model directory.
func Example() {
	for _, name := range training.Families() {
		f, _ := training.Lookup(name)
		var vs []string
		for _, v := range f.Variants() {
			vs = append(vs, string(v.Info.Name))
		}
		if len(vs) > 4 {
			vs = append(vs[:4], "...")
		}
		fmt.Printf("%-8s %-40s %s\n", name, strings.Join(vs, " "), strings.Join(f.Files(f.Variants()[0].Info.Name), " "))
	}
	// Output:
	// das      das da da+mc da+rwgp ...                 das.ckpt das.json curves.parquet
	// deepsys  deepsys atte                             model.ckpt model.json
	// dl2      dl2                                      dl2.ckpt dl2.json curves.parquet
	// dl2-das  dl2-das                                  dl2.ckpt dl2.json curves.parquet
	// marl     marl-device marl-server marl-device-paper marl-single policy.ckpt policy.json curves.parquet
	// rifling  rifling                                  rifling.json curves.parquet
	// rifling-ppo rifling-ppo                              rifling-ppo.ckpt rifling-ppo.json curves.parquet
}

// TestDataCheck: a family has something to train on when it has a
// training job and, trace families (which choose among their runs by
// validation), a validation job; anything less is ErrNoTrainingJobs, with
// the counts.
func TestDataCheck(t *testing.T) {
	one := []datasets.Job{{JobID: "j"}}
	for _, tc := range []struct {
		name   string
		data   training.Data
		source training.Source
		ok     bool
	}{
		{"marl, training only", training.Data{Train: one}, training.SourceMARL, true},
		{"marl, validation only", training.Data{Val: one}, training.SourceMARL, false},
		{"marl, none", training.Data{}, training.SourceMARL, false},
		{"trace, both", training.Data{Train: one, Val: one}, training.SourceTrace, true},
		{"trace, no validation", training.Data{Train: one}, training.SourceTrace, false},
		{"trace, no training", training.Data{Val: one}, training.SourceTrace, false},
	} {
		err := tc.data.Check(tc.source)
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, training.ErrNoTrainingJobs)) {
			t.Errorf("%s: %v", tc.name, err)
		}
		if err != nil && !strings.Contains(err.Error(), fmt.Sprintf("%d training and %d validation jobs", len(tc.data.Train), len(tc.data.Val))) {
			t.Errorf("%s: %v does not give the counts", tc.name, err)
		}
	}
}
