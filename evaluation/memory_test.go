package evaluation

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
)

// documentedConfig is Config with every section at its registered
// defaults and one seed.
func documentedConfig(t *testing.T) Config {
	t.Helper()
	c := Config{Seeds: 1}
	v := reflect.ValueOf(&c).Elem()
	for _, e := range Experiments() {
		key := strings.TrimPrefix(e.ConfigKey(), "eval.")
		if key == "" {
			continue
		}
		if p, ok := c.SectionValue(key); ok {
			if err := yaml.Unmarshal([]byte(e.Defaults), p); err != nil {
				t.Fatalf("%s: %v", e.ID, err)
			}
			c.SetSectionValue(key, p)
			continue
		}
		for i := range v.NumField() {
			if name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ","); name == key {
				if err := yaml.Unmarshal([]byte(e.Defaults), v.Field(i).Addr().Interface()); err != nil {
					t.Fatalf("%s: %v", e.ID, err)
				}
			}
		}
	}
	return c
}

// TestSizeKeysAtTheirMaximum sets each size key of every experiment to
// the largest value its check accepts and plans, without running: a
// configuration is either refused with its memory estimate, naming the
// section, or its estimate is under the limit (8 GiB here, a host's
// memory elsewhere). eval.marl_arrivals.k = 100, inside the range, ended
// in an out-of-memory crash in 9 s (issue 50, #15).
func TestSizeKeysAtTheirMaximum(t *testing.T) {
	const limit = 8 << 30
	maxFatTree := sim.ClusterSpec{Topology: "fattree", K: 160, Servers: "power8"}
	maxVL2 := sim.ClusterSpec{Topology: "vl2", K: 456, Servers: "power8"}
	maxBCube := sim.ClusterSpec{Topology: "bcube", N: 2, K: 19, Servers: "power8"}
	for _, tc := range []struct {
		key     string
		exp     string
		set     func(c *Config)
		refused bool
	}{
		{"eval.seeds", DASTable1, func(c *Config) { c.Seeds = MaxSeeds }, false},
		{"eval.das_table1.max_jobs", DASTable1, func(c *Config) { DASTable1Section.Edit(c, func(s *DASTable1Config) { s.MaxJobs = MaxJobs }) }, false},
		{"eval.das_load.rates", DASLoad, func(c *Config) { DASLoadSection.Edit(c, func(s *DASLoadConfig) { s.Rates = []float64{MaxRateFactor} }) }, false},
		{"eval.marl_arrivals.k", MARLArrivals, func(c *Config) { MARLArrivalsSection.Edit(c, func(s *MARLArrivalsConfig) { s.K = 160 }) }, true},
		{"eval.marl_arrivals.k=100", MARLArrivals, func(c *Config) { MARLArrivalsSection.Edit(c, func(s *MARLArrivalsConfig) { s.K = 100 }) }, true},
		{"eval.marl_arrivals.jobs_per_pod", MARLArrivals, func(c *Config) {
			MARLArrivalsSection.Edit(c, func(s *MARLArrivalsConfig) { s.JobsPerPod = MaxJobsPerPod })
		}, false},
		{"eval.marl_arrivals.intervals", MARLArrivals, func(c *Config) {
			MARLArrivalsSection.Edit(c, func(s *MARLArrivalsConfig) { s.Intervals = MaxIntervals })
		}, false},
		{"eval.marl_arrivals.jobs_per_pod+intervals", MARLArrivals, func(c *Config) {
			MARLArrivalsSection.Edit(c, func(s *MARLArrivalsConfig) { s.JobsPerPod, s.Intervals = MaxJobsPerPod, MaxIntervals })
		}, true},
		{"eval.marl_servers.clusters", MARLServers, func(c *Config) {
			MARLServersSection.Edit(c, func(s *MARLGridConfig) { s.Clusters = []Cluster{{Name: "big", Spec: maxFatTree}} })
		}, true},
		{"eval.marl_servers.intervals", MARLServers, func(c *Config) { MARLServersSection.Edit(c, func(s *MARLGridConfig) { s.Intervals = MaxIntervals }) }, false},
		{"eval.marl_topologies.clusters vl2", MARLTopologies, func(c *Config) {
			MARLTopologiesSection.Edit(c, func(s *MARLGridConfig) { s.Clusters = []Cluster{{Name: "big", Spec: maxVL2}} })
		}, true},
		{"eval.marl_topologies.clusters bcube", MARLTopologies, func(c *Config) {
			MARLTopologiesSection.Edit(c, func(s *MARLGridConfig) { s.Clusters = []Cluster{{Name: "big", Spec: maxBCube}} })
		}, true},
		{"eval.marl_vs_single.clusters", MARLVsSingle, func(c *Config) {
			MARLVsSingleSection.Edit(c, func(s *MARLGridConfig) { s.Clusters = []Cluster{{Name: "big", Spec: maxFatTree}} })
		}, true},
		{"eval.marl_vs_single.intervals", MARLVsSingle, func(c *Config) { MARLVsSingleSection.Edit(c, func(s *MARLGridConfig) { s.Intervals = MaxIntervals }) }, false},
		{"eval.sensitivity.marl_device.k", Sensitivity, func(c *Config) { SensitivitySection.Edit(c, func(s *SensitivityConfig) { s.MARLDevice.K = 160 }) }, true},
		{"eval.sensitivity.marl_device.intervals", Sensitivity, func(c *Config) {
			SensitivitySection.Edit(c, func(s *SensitivityConfig) {
				s.MARLDevice.Intervals, s.MARLDevice.TrainIntervals = MaxIntervals, MaxIntervals
			})
		}, false},
	} {
		t.Run(tc.key, func(t *testing.T) {
			c := documentedConfig(t)
			c.Experiments = []string{tc.exp}
			tc.set(&c)
			for _, e := range Experiments() {
				if e.CheckConfig != nil {
					if errs := e.CheckConfig(&c, e.ID == tc.exp); len(errs) > 0 {
						t.Fatalf("the maximum is out of the key's range: %v", errs)
					}
				}
			}
			needs := memoryNeeds(&c)
			if len(needs) != 1 {
				t.Fatalf("%d estimates, want 1", len(needs))
			}
			errs := checkMemory(&c, limit, "test")
			if !tc.refused {
				if len(errs) > 0 {
					t.Fatalf("refused: %v", errs)
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("not refused: the estimate is %s (%v)", gib(needs[0].bytes()), needs[0])
			}
			key, _, _ := strings.Cut(tc.key, "=")
			key, _, _ = strings.Cut(key, " ")
			key, _, _ = strings.Cut(key, "+")
			for _, want := range []string{key + ": ", "would need at least", "GiB", "limit of 8.00 GiB"} {
				if !strings.Contains(errs[0].Error(), want) {
					t.Errorf("%v\ndoes not say %q", errs[0], want)
				}
			}
		})
	}
}

// TestMemoryLimitIsRead: the host's limit is found on Linux, so the
// check is not silently off.
func TestMemoryLimitIsRead(t *testing.T) {
	l, from := memoryLimit()
	switch {
	case l > 0 && from != "":
	case runtime.GOOS == "linux":
		t.Errorf("no memory limit read on Linux (%d, %q): the check is off", l, from)
	default:
		t.Skipf("no memory limit readable on %s", runtime.GOOS)
	}
}

// TestTrainingMemoryFromFamily: a learned row whose family is
// training.Sized adds its training's memory per server of the cluster to
// the estimate; heuristics add none.
func TestTrainingMemoryFromFamily(t *testing.T) {
	s := MustLookup(MARLArrivals).Spec()
	s.Schedulers = []string{"tetris"}
	heuristic, ok := specNeed("eval.marl_arrivals", s)
	s.Schedulers = []string{"tetris", "marl-device"}
	learned, ok2 := specNeed("eval.marl_arrivals", s)
	if !ok || !ok2 {
		t.Fatalf("no estimate: %v %v", ok, ok2)
	}
	per := training.TrainBytesPerServer("marl-device")
	if heuristic.train != 0 || per == 0 || learned.train != int64(learned.size.Servers)*per {
		t.Errorf("training memory: %d with heuristics only, %d with marl-device (%d servers × %d B), want 0 and the product",
			heuristic.train, learned.train, learned.size.Servers, per)
	}
}
