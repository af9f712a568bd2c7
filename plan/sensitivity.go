package plan

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/marl"
)

// SensitivityPart is the plan of one part of the sensitivity experiment:
// what every grid point evaluates and trains. Its JSON is part of the
// stage's configuration (the cache key).
type SensitivityPart struct {
	Name       string          `json:"name"`
	Title      string          `json:"title"`
	Learned    schedulers.Name `json:"learned"`
	Heuristics []string        `json:"heuristics"`
	// Spec is evaluated at every point: the same jobs (its workload
	// streams are keyed by its experiment and cluster, not by the point).
	Spec   evaluation.Spec `json:"spec"`
	Fitted bool            `json:"fitted"`
	// Environment is the calibrated environment the grid is centred on;
	// "" when the part's paper has none (then the neutral one).
	Environment string `json:"environment"`
	// Training is the plan of every point's model (its seeds and
	// interference are the point's).
	Training *Training `json:"training"`
	// Load and Socket are the operating point where the map sweeps it
	// (eval.sensitivity.marl_device.loads, sockets): the multiplier of
	// the paper's jobs per pod (0: not swept) and the socket rule ("":
	// the experiment's own). Left out of the JSON when not swept.
	Load   float64 `json:"load,omitempty"`
	Socket string  `json:"socket,omitempty"`
}

// PaperEnvironment is the calibrated environment of paper among those the
// run calibrates (Config.Calibrated), "" if none (the first by name if
// several).
func (c Config) PaperEnvironment(paper string) string {
	for _, name := range slices.Sorted(maps.Keys(Environments)) {
		if Environments[name] == paper && slices.Contains(c.Calibrated, name) {
			return name
		}
	}
	return ""
}

// SensitivityParts plans the configured parts, in
// evaluation.SensitivityParts' order.
func (c Config) SensitivityParts() ([]SensitivityPart, error) {
	s := evaluation.SensitivitySection.Get(&c.Eval)
	// Short trainings: the part's episodes, on the evaluated cluster.
	tc := c
	marl.Section.Edit(&tc.Train.Sections, func(m *marl.Settings) {
		m.Episodes, m.Intervals, m.Arrivals = s.MARLDevice.Episodes, s.MARLDevice.TrainIntervals, marl.ArrivalsUniform
	})
	daspaper.Section.Edit(&tc.Train.Sections, func(d *daspaper.Settings) { d.Episodes, d.Cluster = s.DAS.Episodes, DASEachCluster })
	var parts []SensitivityPart
	for _, name := range evaluation.SensitivityParts() {
		if !slices.Contains(s.Parts, name) {
			continue
		}
		var p SensitivityPart
		var parent evaluation.Experiment
		// A part per operating point (marl-device's loads and socket
		// rules); one for das.
		type variant struct {
			suffix string
			load   float64
			socket string
		}
		variants := []variant{{}}
		switch name {
		case evaluation.SensitivityMARLDevice:
			m := s.MARLDevice
			parent = evaluation.MustLookup(evaluation.MARLArrivals)
			p.Spec = parent.Spec()
			p.Fitted = parent.Configure(&c.Eval, &p.Spec)
			// The map keeps the batch protocol it was measured with:
			// test jobs placed every interval, models trained on
			// uniform arrivals, whatever marl-arrivals does.
			p.Spec.Sim.Trigger = sim.TriggerInterval
			c.Sim.applyShape(&p.Spec)
			i := slices.IndexFunc(p.Spec.Workloads, func(w evaluation.Workload) bool { return w.Kind == evaluation.KindUniform })
			w := p.Spec.Workloads[i]
			w.Intervals = m.Intervals
			p.Spec.Workloads = []evaluation.Workload{w}
			p.Spec.Clusters = []evaluation.Cluster{{Name: fmt.Sprintf("fattree-k%d", m.K), Spec: sim.ClusterSpec{Topology: "fattree", K: m.K, Servers: "power8"}}}
			p.Heuristics = slices.Clone(m.Heuristics)
			p.Title = fmt.Sprintf("marl-device, fat-tree k=%d of power8", m.K)
			loads, sockets := m.Loads, m.Sockets
			if len(loads) == 0 {
				loads = []float64{1}
			}
			if !slices.Equal(loads, []float64{1}) || len(sockets) > 0 {
				variants = variants[:0]
				if len(sockets) == 0 {
					sockets = []string{""}
				}
				for _, l := range loads {
					for _, r := range sockets {
						v := variant{suffix: "-x" + strconv.FormatFloat(l, 'g', -1, 64), load: l, socket: r}
						if r != "" {
							v.suffix += "-" + r
						}
						variants = append(variants, v)
					}
				}
			}
		case evaluation.SensitivityDAS:
			d := s.DAS
			parent = evaluation.MustLookup(evaluation.DASTable1)
			p.Spec = parent.Spec()
			p.Fitted = parent.Configure(&c.Eval, &p.Spec)
			cs, err := sim.Preset(d.Cluster)
			if err != nil {
				return nil, fmt.Errorf("eval.sensitivity.das.cluster: %w", err)
			}
			p.Spec.Clusters = []evaluation.Cluster{{Name: d.Cluster, Spec: cs}}
			for i := range p.Spec.Workloads {
				p.Spec.Workloads[i].JobsFile = c.Jobs // resolved when the stage runs
			}
			p.Heuristics = slices.Clone(d.Heuristics)
			p.Title = "das, " + d.Cluster + " cluster"
		}
		p.Spec.Params = c.Sched
		// Canonical names, so that aliases (fifo-ff) read as the tables'.
		for i, h := range p.Heuristics {
			canon, err := schedulers.Canonical(h)
			if err != nil {
				return nil, fmt.Errorf("eval.sensitivity (%s): %w", name, err)
			}
			p.Heuristics[i] = string(canon)
		}
		canon, err := schedulers.Canonical(name)
		if err != nil {
			return nil, fmt.Errorf("eval.sensitivity (%s): %w", name, err)
		}
		for _, v := range variants {
			q := p
			q.Spec.Workloads = slices.Clone(p.Spec.Workloads)
			q.Name, q.Learned, q.Load, q.Socket = name+v.suffix, canon, v.load, v.socket
			if v.load != 0 {
				built, err := q.Spec.Clusters[0].Spec.Build()
				if err != nil {
					return nil, fmt.Errorf("eval.sensitivity (%s): %w", q.Name, err)
				}
				q.Spec.Workloads[0].JobsPerPod = v.load * evaluation.MARLPaperLoad(built)
				q.Title += fmt.Sprintf(", load ×%g", v.load)
			}
			if v.socket != "" {
				q.Spec.Sim.Socket = v.socket
				q.Title += ", " + v.socket + " socket"
			}
			q.Environment = c.PaperEnvironment(parent.Paper)
			q.Spec.Experiment = evaluation.Sensitivity + "-" + q.Name
			q.Spec.Seeds = c.Eval.Seeds
			q.Spec.Schedulers = append(slices.Clone(q.Heuristics), name)
			// The map is of the speed model's scales: always the model, in
			// the environment named for the tables (the points'
			// environments are passed as the interference model).
			q.Spec.Sim.Speed, q.Spec.Sim.Environment = sim.SpeedModel, q.Environment
			if err := q.Spec.Validate(); err != nil {
				return nil, fmt.Errorf("eval.sensitivity (%s): %w", q.Name, err)
			}
			if q.Training, err = tc.TrainingOf(canon, q.Spec, q.Fitted, q.Spec.Clusters[0]); err != nil {
				return nil, fmt.Errorf("eval.sensitivity (%s): %w", q.Name, err)
			}
			parts = append(parts, q)
		}
	}
	return parts, nil
}

// Speed is the speed model the part's grid is centred on: each point
// scales its environment.
func (p SensitivityPart) Speed() SpeedModel {
	return SpeedModel{Speed: p.Spec.Sim.Speed, Fitted: p.Fitted, Environment: p.Environment}
}
