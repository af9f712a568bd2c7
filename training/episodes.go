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
	out := map[string]int{}
	for _, name := range Families() {
		f, _ := Lookup(name)
		e, ok := f.(Episodic)
		if !ok {
			continue
		}
		for _, v := range f.Variants() {
			out[string(v.Info.Name)] = e.Episodes(v.Info.Name, s)
		}
	}
	return out
}
