package pipeline

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// PlannedStage is what a run would do with one stage, worked out without
// running anything (Runner.Plan).
type PlannedStage struct {
	Name string
	// Cached: the stage's record in the run directory matches its inputs
	// and configuration, and its outputs are intact; a run skips it.
	Cached bool
	// Why says why a stage that is not cached runs: "no record", "its
	// configuration, inputs or outputs changed", "an input is made by a
	// stage that runs (NAME)", or "inputs missing".
	Why string
	// Inputs are the stage's inputs: artifacts of the run (made by an
	// earlier stage) or external files and directories.
	Inputs []string
	// Missing are the external inputs that do not exist.
	Missing []string
	// LastWallS and LastCPUS are the wall and CPU time of the stage's last
	// recorded run in the run directory's manifest: of the run that made
	// its outputs where the manifest's run found it cached (0 when that is
	// not known). StageManifest.CPUS says how the CPU time is shared among
	// stages that overlap. LastStatus is the stage's status in the
	// manifest; "" when the manifest has no such stage.
	LastWallS, LastCPUS float64
	LastStatus          string
}

// Plan works out, for every stage in dependency order, whether a Run of
// stages into r.Dir would skip it as cached, and why not. It hashes the
// external inputs and reads the stages' records; it writes nothing and
// takes no lock, so it may race a run in progress (its answer is then that
// run's state at some moment).
func (r *Runner) Plan(stages []Stage) ([]PlannedStage, error) {
	nodes, err := plan(stages)
	if err != nil {
		return nil, err
	}
	last := map[string]StageManifest{}
	if m, err := ReadManifest(r.Dir); err == nil {
		for _, s := range m.Stages {
			last[s.Name] = s
		}
	}
	producer := map[string]int{}
	for i, n := range nodes {
		for _, o := range n.stage.Outputs() {
			producer[o] = i
		}
	}
	outputs := map[string]Artifact{} // outputs of cached stages
	out := make([]PlannedStage, len(nodes))
	for i, n := range nodes {
		s := n.stage
		p := PlannedStage{Name: s.Name(), Inputs: s.Inputs()}
		if l, ok := last[s.Name()]; ok {
			p.LastStatus = l.Status
			p.LastWallS, p.LastCPUS = l.ranCost()
		}
		var ins []Artifact
		for _, in := range s.Inputs() {
			if j, ok := producer[in]; ok {
				a, done := outputs[in]
				if !done {
					if p.Why == "" {
						p.Why = "an input is made by a stage that runs (" + nodes[j].stage.Name() + ")"
					}
					continue
				}
				ins = append(ins, a)
				continue
			}
			sum, size, err := HashPath(in)
			if errors.Is(err, fs.ErrNotExist) {
				p.Missing = append(p.Missing, in)
				continue
			}
			if err != nil {
				return nil, err
			}
			ins = append(ins, Artifact{Name: in, SHA256: sum, Bytes: size, External: true})
		}
		switch {
		case len(p.Missing) > 0:
			p.Why = "inputs missing"
		case p.Why == "":
			key, err := cacheKey(s, ins, r.Seed)
			if err != nil {
				return nil, err
			}
			sameKey, err := cacheKey(s, withoutClockHashes(ins), r.Seed)
			if err != nil {
				return nil, err
			}
			rec := RecordFiles(s.Name())
			recPath, clockPath := filepath.Join(r.Dir, rec[0]), filepath.Join(r.Dir, rec[1])
			if outs, ok := r.intact(recPath, clockPath, sameKey, key, s.Outputs()); ok {
				p.Cached = true
				for _, o := range outs {
					outputs[o.Name] = o
				}
			} else if _, err := os.Lstat(recPath); err != nil {
				p.Why = "no record of an earlier run"
			} else {
				p.Why = "its configuration, inputs or outputs changed"
			}
		}
		out[i] = p
	}
	return out, nil
}

// RecordFiles are the files, relative to a run directory, in which the
// runner records that the stage named name ran: its record and its
// wall-clock side. Without them (and its outputs) a run directory is one
// where the stage never ran.
func RecordFiles(name string) []string {
	return []string{path.Join(stateDir, "stages", name+".json"), path.Join(stateDir, "stages", name+".timings.json")}
}
