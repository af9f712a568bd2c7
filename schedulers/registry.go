package schedulers

import (
	"fmt"
	"strings"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
)

// entry builds one scheduler from a seed.
type entry struct {
	name string
	doc  string
	make func(seed uint64) (sim.Scheduler, error)
}

func greedy(name string, order Order, place func() Placer) func(uint64) (sim.Scheduler, error) {
	return func(uint64) (sim.Scheduler, error) { return NewGreedy(name, order, place()), nil }
}

var registry = []entry{
	{"fifo-firstfit", "DAS: submission order, lowest-index server that fits", greedy("fifo-firstfit", FIFO, func() Placer { return FirstFit{} })},
	{"fifo-loadbalance", "DAS: submission order, server with the smallest GPU share in use", greedy("fifo-loadbalance", FIFO, func() Placer { return LeastGPULoad{} })},
	{"drf-firstfit", "DAS: smallest dominant share first, first fit", greedy("drf-firstfit", DRF, func() Placer { return FirstFit{} })},
	{"drf-loadbalance", "DAS: smallest dominant share first, least GPU load", greedy("drf-loadbalance", DRF, func() Placer { return LeastGPULoad{} })},
	{"tetris", "MARL/DAS: submission order, server best aligned with the demand", greedy("tetris", FIFO, func() Placer { return Alignment{} })},
	{"load-balancing", "MARL: submission order, least normalised (GPU, CPU, memory) load", greedy("load-balancing", FIFO, func() Placer { return &LeastLoad{} })},
	{"lif", "MARL: submission order, least predicted interference", greedy("lif", FIFO, func() Placer { return &LeastInterference{} })},
	{"tetris-pack", "MARL: submission order, multi-resource bin packing with job locality (the MARL paper's Tetris)", greedy("tetris-pack", FIFO, func() Placer { return &Packing{} })},
	{"malo", "DAS: ant-lion + elite differential evolution (T=400, P=0.99, I=50)", func(seed uint64) (sim.Scheduler, error) {
		return NewMALO(DefaultMALOConfig(), sim.DefaultConfig().PriceGPUHour, pipeline.Rand(seed, "schedulers", "malo"))
	}},
	{"mosa", "DAS: multi-objective simulated annealing (I=100, S=50)", func(seed uint64) (sim.Scheduler, error) {
		return NewMOSA(DefaultMOSAConfig(), sim.DefaultConfig().PriceGPUHour, pipeline.Rand(seed, "schedulers", "mosa"))
	}},
}

var aliases = map[string]string{
	"fifo-ff": "fifo-firstfit", "fifo-lb": "fifo-loadbalance", "drf-ff": "drf-firstfit", "drf-lb": "drf-loadbalance",
	"lb": "load-balancing", "loadbalancing": "load-balancing", "least-interference-first": "lif",
}

// Names lists the registered schedulers in a fixed order (DAS baselines,
// then MARL baselines, then meta-heuristics).
func Names() []string {
	out := make([]string, len(registry))
	for i, e := range registry {
		out[i] = e.name
	}
	return out
}

// Describe is a one-line description of a registered scheduler.
func Describe(name string) string {
	if e, ok := lookup(name); ok {
		return e.doc
	}
	return ""
}

func lookup(name string) (entry, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.ReplaceAll(n, "_", "-")
	if a, ok := aliases[n]; ok {
		n = a
	}
	for _, e := range registry {
		if e.name == n {
			return e, true
		}
	}
	return entry{}, false
}

// New returns a fresh scheduler by name (case-insensitive; FIFO-FF-style
// abbreviations accepted). The optional seed (default 0) seeds the
// randomised ones through pipeline.Rand(seed, "schedulers", name); the
// heuristics ignore it. Each call returns an independent value: use one per
// run.
func New(name string, seed ...uint64) (sim.Scheduler, error) {
	e, ok := lookup(name)
	if !ok {
		return nil, fmt.Errorf("schedulers: unknown scheduler %q (want one of %s)", name, strings.Join(Names(), ", "))
	}
	var s uint64
	if len(seed) > 1 {
		return nil, fmt.Errorf("schedulers: New(%q): at most one seed, got %d", name, len(seed))
	}
	if len(seed) == 1 {
		s = seed[0]
	}
	return e.make(s)
}
