package sim

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
)

func TestEnvironmentRoundTrip(t *testing.T) {
	e := Environment{Name: "marl-paper", Source: "test", InterferenceScale: 3.25, CommScale: 0.0123456789, PSShare: 0.25}
	p := filepath.Join(t.TempDir(), "env.json")
	if err := WriteEnvironment(p, &e); err != nil {
		t.Fatal(err)
	}
	got, err := ReadEnvironment(p)
	if err != nil {
		t.Fatal(err)
	}
	if *got != e {
		t.Fatalf("read back %+v, want %+v", *got, e)
	}
	a, _ := os.ReadFile(p)
	b, _ := e.MarshalJSON()
	if string(a) != string(b) {
		t.Fatalf("bytes differ between writes:\n%s\n%s", a, b)
	}
}

// Every malformed file is rejected with an error naming the file and, where
// one is to blame, the key.
func TestEnvironmentRejects(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ name, body, key string }{
		{"syntax", `{"name": "x", "interference_scale": 1, `, ""},
		{"nan literal", `{"name": "x", "interference_scale": NaN, "comm_scale": 1}`, ""},
		{"unknown", `{"name": "x", "interference_scale": 1, "comm_scale": 1, "ps_share": 1, "pcie_scale": 2}`, "pcie_scale"},
		{"inf", `{"name": "x", "interference_scale": 1e999, "comm_scale": 1, "ps_share": 1}`, "interference_scale"},
		{"string number", `{"name": "x", "interference_scale": "NaN", "comm_scale": 1, "ps_share": 1}`, "interference_scale"},
		{"too big", `{"name": "x", "interference_scale": 1, "comm_scale": 1000, "ps_share": 1}`, "comm_scale"},
		{"zero", `{"name": "x", "interference_scale": 0, "comm_scale": 1, "ps_share": 1}`, "interference_scale"},
		{"negative", `{"name": "x", "interference_scale": 1, "comm_scale": -0.5, "ps_share": 1}`, "comm_scale"},
		{"missing", `{"name": "x", "interference_scale": 1, "ps_share": 1}`, "comm_scale"},
		{"ps_share above 1", `{"name": "x", "interference_scale": 1, "comm_scale": 1, "ps_share": 1.5}`, "ps_share"},
		{"no name", `{"interference_scale": 1, "comm_scale": 1, "ps_share": 1}`, "name"},
		{"bad name", `{"name": 3, "interference_scale": 1, "comm_scale": 1, "ps_share": 1}`, "name"},
	}
	for i, c := range cases {
		p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".json")
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadEnvironment(p)
		if err == nil {
			t.Errorf("case %d (%s): accepted", i, c.name)
			continue
		}
		if !strings.Contains(err.Error(), p) || (c.key != "" && !strings.Contains(err.Error(), c.key+":")) {
			t.Errorf("case %d (%s): error %q does not name file and key %q", i, c.name, err, c.key)
		}
		if !errors.Is(err, ErrBadEnvironment) {
			t.Errorf("case %d (%s): error %q does not wrap ErrBadEnvironment", i, c.name, err)
		}
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		e := Environment{Name: "x", InterferenceScale: 1, CommScale: v, PSShare: 1}
		if err := e.Validate(); err == nil || !strings.Contains(err.Error(), "comm_scale") {
			t.Errorf("Validate(comm_scale=%v) = %v, want an error naming comm_scale", v, err)
		}
		if err := WriteEnvironment(filepath.Join(dir, "w.json"), &e); err == nil {
			t.Errorf("WriteEnvironment(comm_scale=%v) accepted", v)
		}
	}
}

// The environment scales what it says: a two-server worker–PS job's
// communication by CommScale, a co-located pair's slowdown by
// InterferenceScale, and the neutral environment changes nothing.
func TestEnvironmentApplies(t *testing.T) {
	c, err := FlatOf(2, ServerKind{Name: "t", Sockets: []Socket{{16, 2, 128}}, MemGiB: 64, NICGbps: 10})
	if err != nil {
		t.Fatal(err)
	}
	job := func(id string) datasets.Job {
		return datasets.Job{JobID: id, DurationS: 1000, Model: "vgg-16", Tasks: []datasets.Task{
			{Role: datasets.RoleWorker, Instances: 1, GPU: 1, CPU: 6}, {Role: datasets.RolePS, Instances: 1, CPU: 1}}}
	}
	// slowdowns returns the two jobs' 1/rate − 1: job a split over both
	// servers, job b on server 0 only.
	slowdowns := func(env *Environment) (split, local float64) {
		t.Helper()
		cfg := DefaultConfig()
		s, err := New(c, []datasets.Job{job("a"), job("b")}, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if env != nil {
			if err := s.UseEnvironment(env); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Next(context.Background()); err != nil {
			t.Fatal(err)
		}
		pl := []Placement{{Job: 0, Slots: []Slot{{0, 0}, {1, 0}}}, {Job: 1, Slots: []Slot{{0, 0}, {0, 0}}}}
		if err := s.Apply(pl); err != nil {
			t.Fatal(err)
		}
		return 1/s.Job(0).Rate() - 1, 1/s.Job(1).Rate() - 1
	}
	s0, l0 := slowdowns(nil)
	n := NeutralEnvironment()
	s1, l1 := slowdowns(&n)
	if s0 != s1 || l0 != l1 {
		t.Fatalf("neutral environment changed slowdowns: (%v, %v) → (%v, %v)", s0, l0, s1, l1)
	}
	if !(l0 > 0) || !(s0 > l0) {
		t.Fatalf("want a co-location slowdown > 0 and more for the split job, got split %v local %v", s0, l0)
	}
	e := Environment{Name: "x", InterferenceScale: 2, CommScale: 0.5, PSShare: 1}
	s2, l2 := slowdowns(&e)
	// Job b shares server 0 with a's worker: its slowdown is interference
	// only, and doubles.
	if math.Abs(l2-2*l0) > 1e-12 {
		t.Errorf("local slowdown %v, want 2×%v", l2, l0)
	}
	// Job a's is S_a + comm. With one factor tiny the other term is nearly
	// alone: s_i ≈ S_a, s_c ≈ comm; then (2, ½) must give 2·S_a + comm/2.
	envI := Environment{Name: "x", InterferenceScale: 1, CommScale: 0.001, PSShare: 1}
	envC := Environment{Name: "x", InterferenceScale: 0.01, CommScale: 1, PSShare: 1}
	envC2 := Environment{Name: "x", InterferenceScale: 0.01, CommScale: 0.5, PSShare: 1}
	si, _ := slowdowns(&envI)
	sc, _ := slowdowns(&envC)
	sc2, _ := slowdowns(&envC2)
	if !(si > 0) || !(sc > si) {
		t.Fatalf("interference-only %v, communication-only %v: want both > 0, VGG-16's communication larger", si, sc)
	}
	// Tolerance 1 %: each "alone" term carries 0.1 % (resp. 1 %) of the other.
	if want := 2*si + sc/2; math.Abs(s2-want) > 0.01*want {
		t.Errorf("split slowdown %v, want 2×%v + %v/2 = %v", s2, si, sc, want)
	}
	if rel := math.Abs(sc2/sc - 0.5); rel > 0.01 {
		t.Errorf("communication %v → %v with half the volume, want half", sc, sc2)
	}
	if err := (&Environment{Name: "x", InterferenceScale: math.NaN(), CommScale: 1}).Validate(); err == nil {
		t.Error("NaN accepted")
	}
}

// New given an environment's interference model runs in the environment,
// communication included, exactly as UseEnvironment.
func TestEnvironmentViaModel(t *testing.T) {
	c, err := FlatOf(2, ServerKind{Name: "t", Sockets: []Socket{{16, 2, 128}}, MemGiB: 64, NICGbps: 10})
	if err != nil {
		t.Fatal(err)
	}
	jobs := []datasets.Job{{JobID: "a", DurationS: 1000, Model: "vgg-16", Tasks: []datasets.Task{
		{Role: datasets.RoleWorker, Instances: 1, GPU: 1, CPU: 6}, {Role: datasets.RolePS, Instances: 1, CPU: 1}}}}
	e := Environment{Name: "x", InterferenceScale: 2, CommScale: 0.25, PSShare: 0.5}
	rate := func(model Interference, use bool) float64 {
		s, err := New(c, jobs, DefaultConfig(), model)
		if err != nil {
			t.Fatal(err)
		}
		if use {
			if err := s.UseEnvironment(&e); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Next(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := s.Apply([]Placement{{Job: 0, Slots: []Slot{{0, 0}, {1, 0}}}}); err != nil {
			t.Fatal(err)
		}
		return s.Job(0).Rate()
	}
	plain, via, used := rate(nil, false), rate(e.Interference(nil), false), rate(nil, true)
	if via != used || via == plain {
		t.Fatalf("rate plain %v, via model %v, UseEnvironment %v: want the last two equal and unlike the first", plain, via, used)
	}
}

// TestEnvironmentBaseModel: the model an environment was calibrated over
// round-trips through its file, and CheckBase refuses any other.
func TestEnvironmentBaseModel(t *testing.T) {
	e := NeutralEnvironment()
	e.Name = "x"
	e.BaseModel = strings.Repeat("ab", 32)
	b, err := e.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var back Environment
	if err := back.UnmarshalJSON(b); err != nil || back.BaseModel != e.BaseModel {
		t.Fatalf("round trip: %v, %q", err, back.BaseModel)
	}
	if err := back.CheckBase(e.BaseModel); err != nil {
		t.Errorf("its own model refused: %v", err)
	}
	for _, other := range []string{"", strings.Repeat("cd", 32)} {
		if err := back.CheckBase(other); !errors.Is(err, ErrBadEnvironment) {
			t.Errorf("model %q accepted: %v", other, err)
		}
	}
	bad := strings.Replace(string(b), e.BaseModel, "not-a-hash", 1)
	if err := back.UnmarshalJSON([]byte(bad)); !errors.Is(err, ErrBadEnvironment) {
		t.Errorf("a malformed hash accepted: %v", err)
	}
	if n := NeutralEnvironment(); n.CheckBase("") != nil {
		t.Error("an environment of the default model refused it")
	}
}
