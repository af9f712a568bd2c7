package training

import "github.com/schedlab/schedlab/schedulers"

// An Episodic family says how many training episodes a model of each of
// its variants gets under the run's sections: what the claims report as
// the size a learned row was tested at. A family without it reports none.
type Episodic interface {
	Family
	// Episodes is the episodes variant v trains under s (for the DAS
	// paper's families, per learning rate).
	Episodes(v schedulers.Name, s Sections) int
}

// Episodes is, by variant name, the training episodes of every variant of
// every registered Episodic family under s.
func Episodes(s Sections) map[string]int {
	return byVariant(func(e Episodic, v schedulers.Name) int { return e.Episodes(v, s) })
}

// byVariant is, by variant name, of(f, v) for every variant v of every
// registered family f that is an I.
func byVariant[I any, T any](of func(I, schedulers.Name) T) map[string]T {
	out := map[string]T{}
	for _, name := range Families() {
		f, _ := Lookup(name)
		i, ok := f.(I)
		if !ok {
			continue
		}
		for _, v := range f.Variants() {
			out[string(v.Info.Name)] = of(i, v.Info.Name)
		}
	}
	return out
}

// A TrainedBy family names how each of its variants is trained (DAS:
// "Algorithm 1" or "MAPPO"), for the claims that say what a row was
// tested at.
type TrainedBy interface {
	Family
	// TrainedBy is v's trainer, "" for none worth naming.
	TrainedBy(v schedulers.Name) string
}

// TrainerOf is the trainer of the learned scheduler name (TrainedBy), ""
// where its family names none or name is not a learned scheduler.
func TrainerOf(name schedulers.Name) string {
	f, _, ok := VariantOf(name)
	if !ok {
		return ""
	}
	if t, ok := f.(TrainedBy); ok {
		return t.TrainedBy(name)
	}
	return ""
}

// A Sized family says how much memory a training of it holds at least
// per server of the cluster it trains on, for the run's memory estimate
// (evaluation's), which refuses a configuration that cannot fit.
type Sized interface {
	Family
	// TrainBytesPerServer is that memory, in bytes.
	TrainBytesPerServer() int64
}

// TrainBytesPerServer is the memory a training of the learned scheduler
// name holds at least per server of its cluster (Sized), 0 where its
// family says none or name is not a learned scheduler.
func TrainBytesPerServer(name schedulers.Name) int64 {
	if f, _, ok := VariantOf(name); ok {
		if s, ok := f.(Sized); ok {
			return s.TrainBytesPerServer()
		}
	}
	return 0
}

// A family that says Arrivals names, in words ("uniform",
// "Google-pattern"), the arrival pattern its variants' training jobs
// follow under the run's sections, for the claims that say what a row was
// tested at.
type Arrivals interface {
	Family
	// TrainingArrivals is the arrival pattern of v's training jobs under
	// s, "" for none worth naming.
	TrainingArrivals(v schedulers.Name, s Sections) string
}

// TrainingArrivals is, by variant name, the arrival pattern of the
// training jobs of every variant of every registered Arrivals family
// under s.
func TrainingArrivals(s Sections) map[string]string {
	return byVariant(func(a Arrivals, v schedulers.Name) string { return a.TrainingArrivals(v, s) })
}
