package schedulers

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
)

// Name is a scheduler's canonical name in the registry: lower case, with
// hyphens (fifo-firstfit, tetris-pack, das, marl-device). Canonical turns
// user input (any case, FIFO-FF-style aliases) into one.
type Name string

// Info describes a registered scheduler.
type Info struct {
	Name Name
	// Display is the papers' name (FIFO-FirstFit, DAS, MARL
	// (device-level)), the label of table rows.
	Display string
	// Doc is one line for --help and listings.
	Doc string
	// Family is the learned family that trains the scheduler's model (das,
	// marl, ...; see package training), "" for a heuristic.
	Family string
	// Aliases are further accepted spellings (fifo-ff, lb).
	Aliases []string
}

// Learned reports whether the scheduler needs a trained model.
func (i Info) Learned() bool { return i.Family != "" }

// Learned reports whether n is a registered learned scheduler.
func (n Name) Learned() bool {
	e, ok := lookup(string(n))
	return ok && e.info.Learned()
}

// Stream names the random streams of schedulers at evaluation: a
// randomised scheduler draws from (Options.Seed, Stream, its name).
const Stream pipeline.Stream = "schedulers"

// Options configure one scheduler value. The zero value is valid for a
// heuristic: seed 0 and the simulator's default GPU price.
type Options struct {
	// Seed seeds the randomised schedulers through pipeline.Rand(Seed,
	// Stream, name); deterministic ones ignore it.
	Seed uint64
	// PriceGPUHour is the GPU price ($/GPU-hour) the fee-aware schedulers
	// (MALO, MOSA) optimise against: the evaluated experiment's
	// sim.Config.PriceGPUHour. 0 means sim.DefaultConfig's.
	PriceGPUHour float64
	// Model is the directory holding a learned scheduler's trained model
	// (see package training for how a run lays them out); required for a
	// learned scheduler, ignored by the others.
	Model string
}

// Constructor builds one scheduler value from its options.
type Constructor func(Options) (sim.Scheduler, error)

type entry struct {
	info Info
	make Constructor
}

// The registry: heuristics register below, learned schedulers from their
// family's package (training.Register) when that package is linked in.
var (
	mu      sync.RWMutex
	entries []entry          // registration order
	byName  = map[Name]int{} // names and aliases → index in entries
)

// ErrUnknown: a name that no registered scheduler has.
var ErrUnknown = errors.New("unknown scheduler")

// Register adds a scheduler. It panics if the name or an alias is taken or
// malformed: registration is a programmer's act, done once in an init.
func Register(info Info, ctor Constructor) {
	mu.Lock()
	defer mu.Unlock()
	if ctor == nil {
		panic("schedulers: Register " + string(info.Name) + ": nil constructor")
	}
	for _, n := range append([]string{string(info.Name)}, info.Aliases...) {
		if n == "" || n != normalise(n) {
			panic(fmt.Sprintf("schedulers: Register: name %q is not canonical (lower case, hyphens)", n))
		}
		if _, dup := byName[Name(n)]; dup {
			panic("schedulers: Register: " + n + " registered twice")
		}
		byName[Name(n)] = len(entries)
	}
	entries = append(entries, entry{info: info, make: ctor})
}

func normalise(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
}

func lookup(s string) (entry, bool) {
	mu.RLock()
	defer mu.RUnlock()
	i, ok := byName[Name(normalise(s))]
	if !ok {
		return entry{}, false
	}
	return entries[i], true
}

// Canonical maps a name or alias, in any case, to its registered name; an
// unknown name is an error (wrapping ErrUnknown) that lists the known ones.
func Canonical(s string) (Name, error) {
	e, ok := lookup(s)
	if !ok {
		return "", fmt.Errorf("schedulers: %w %q (heuristics: %s; learned: %s)", ErrUnknown, s,
			join(Heuristics()), join(LearnedNames()))
	}
	return e.info.Name, nil
}

// Lookup returns a registered scheduler's description by name or alias.
func Lookup(s string) (Info, bool) {
	e, ok := lookup(s)
	return e.info, ok
}

// Display is the papers' name of a registered scheduler, or s itself.
func Display(s string) string {
	if e, ok := lookup(s); ok && e.info.Display != "" {
		return e.info.Display
	}
	return s
}

// Describe is a one-line description of a registered scheduler, "" for
// an unknown name.
func Describe(s string) string {
	e, _ := lookup(s)
	return e.info.Doc
}

func names(keep func(Info) bool) []Name {
	mu.RLock()
	defer mu.RUnlock()
	var out []Name
	for _, e := range entries {
		if keep(e.info) {
			out = append(out, e.info.Name)
		}
	}
	return out
}

// Heuristics lists the schedulers that need no model, in registration
// order (DAS baselines, MARL baselines, meta-heuristics).
func Heuristics() []Name { return names(func(i Info) bool { return !i.Learned() }) }

// LearnedNames lists the learned schedulers that linked-in families
// registered, sorted.
func LearnedNames() []Name {
	out := names(Info.Learned)
	slices.Sort(out)
	return out
}

// Names lists every registered scheduler: heuristics in registration
// order, then the learned ones sorted.
func Names() []Name { return append(Heuristics(), LearnedNames()...) }

func join(ns []Name) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = string(n)
	}
	return strings.Join(s, ", ")
}

// New returns a fresh scheduler by name or alias (user input goes through
// Canonical, or New(Name(s), ...)). Each call returns an independent value:
// use one per run. A learned scheduler needs opt.Model.
func New(name Name, opt Options) (sim.Scheduler, error) {
	e, ok := lookup(string(name))
	if !ok {
		_, err := Canonical(string(name))
		return nil, err
	}
	if e.info.Learned() && opt.Model == "" {
		return nil, fmt.Errorf("schedulers: %s is learned (family %s): give the directory of its trained model", e.info.Name, e.info.Family)
	}
	if opt.PriceGPUHour == 0 {
		opt.PriceGPUHour = sim.DefaultConfig().PriceGPUHour
	}
	s, err := e.make(opt)
	if err != nil {
		return nil, fmt.Errorf("schedulers: %s: %w", e.info.Name, err)
	}
	return s, nil
}

func greedy(name string, order Order, place func() Placer) Constructor {
	return func(Options) (sim.Scheduler, error) { return NewGreedy(name, order, place()), nil }
}

func init() {
	for _, h := range []struct {
		info Info
		make Constructor
	}{
		{Info{Name: "fifo-firstfit", Display: "FIFO-FirstFit", Aliases: []string{"fifo-ff"},
			Doc: "DAS: submission order, lowest-index server that fits"},
			greedy("fifo-firstfit", FIFO, func() Placer { return FirstFit{} })},
		{Info{Name: "fifo-loadbalance", Display: "FIFO-Load Balance", Aliases: []string{"fifo-lb"},
			Doc: "DAS: submission order, server with the smallest GPU share in use"},
			greedy("fifo-loadbalance", FIFO, func() Placer { return LeastGPULoad{} })},
		{Info{Name: "drf-firstfit", Display: "DRF-FirstFit", Aliases: []string{"drf-ff"},
			Doc: "DAS: smallest dominant share first, first fit"},
			greedy("drf-firstfit", DRF, func() Placer { return FirstFit{} })},
		{Info{Name: "drf-loadbalance", Display: "DRF-Load Balance", Aliases: []string{"drf-lb"},
			Doc: "DAS: smallest dominant share first, least GPU load"},
			greedy("drf-loadbalance", DRF, func() Placer { return LeastGPULoad{} })},
		{Info{Name: "tetris", Display: "Tetris",
			Doc: "MARL/DAS: submission order, server best aligned with the demand"},
			greedy("tetris", FIFO, func() Placer { return Alignment{} })},
		{Info{Name: "load-balancing", Display: "Load Balancing", Aliases: []string{"lb", "loadbalancing"},
			Doc: "MARL: submission order, least normalised (GPU, CPU, memory) load"},
			greedy("load-balancing", FIFO, func() Placer { return &LeastLoad{} })},
		{Info{Name: "lif", Display: "LIF", Aliases: []string{"least-interference-first"},
			Doc: "MARL: submission order, least predicted interference"},
			greedy("lif", FIFO, func() Placer { return &LeastInterference{} })},
		{Info{Name: "tetris-pack", Display: "Tetris (packing)",
			Doc: "MARL: submission order, multi-resource bin packing with job locality (the MARL paper's Tetris)"},
			greedy("tetris-pack", FIFO, func() Placer { return &Packing{} })},
		{Info{Name: "malo", Display: "MALO", Doc: "DAS: ant-lion + elite differential evolution (T=400, P=0.99, I=50)"},
			func(o Options) (sim.Scheduler, error) {
				return NewMALO(DefaultMALOConfig(), o.PriceGPUHour, pipeline.Rand(o.Seed, Stream, "malo"))
			}},
		{Info{Name: "mosa", Display: "MOSA", Doc: "DAS: multi-objective simulated annealing (I=100, S=50)"},
			func(o Options) (sim.Scheduler, error) {
				return NewMOSA(DefaultMOSAConfig(), o.PriceGPUHour, pipeline.Rand(o.Seed, Stream, "mosa"))
			}},
	} {
		Register(h.info, h.make)
	}
}
