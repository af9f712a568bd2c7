package dl2

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/nn"
)

// Scheduler runs a DL² policy deterministically (arg max picks, first
// fit) as a sim.Scheduler.
type Scheduler struct{ m *Model }

// NewScheduler wraps a model.
func NewScheduler(m *Model) *Scheduler { return &Scheduler{m: m} }

// Name is "dl2".
func (s *Scheduler) Name() string { return "dl2" }

// Schedule implements sim.Scheduler.
func (s *Scheduler) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.m.checkCluster(st.Cluster); err != nil {
		return nil, err
	}
	n := s.m.cfg.Jobs
	rows, chosen := daspaper.Observe(st, n, nil)
	led := st.Ledger()
	taken := make([]bool, len(chosen))
	ok := make([]bool, len(chosen))
	var pl []sim.Placement
	for {
		for r, js := range chosen {
			ok[r] = !taken[r] && fits(led, js)
		}
		o := &Obs{X: make([]float64, s.m.cfg.width()), Mask: make([]bool, n)}
		s.m.features(o, rows, ok, led, st)
		a, _, _ := s.m.Pick(o, nil)
		if a < 0 {
			return pl, nil
		}
		pl = append(pl, sim.Placement{Job: chosen[a].Index, Slots: firstFit(led, chosen[a])})
		taken[a] = true
	}
}

// Sidecar is the JSON beside a DL² checkpoint.
type Sidecar struct {
	Family     string `json:"family"`
	Config     Config `json:"config"`
	ConfigHash string `json:"config_hash"`
	Cluster    string `json:"cluster,omitempty"`
}

// Hash is the sha256 of the configuration's JSON.
func (c Config) Hash() string {
	h, err := pipeline.HashJSON(c)
	if err != nil {
		panic("dl2: config not serialisable: " + err.Error())
	}
	return h
}

func sidecarPath(path string) string { return strings.TrimSuffix(path, filepath.Ext(path)) + ".json" }

// Save writes m's checkpoint to path and its sidecar beside it.
func Save(path string, m *Model, cluster string) error {
	b, err := json.MarshalIndent(Sidecar{Family: "dl2", Config: m.cfg, ConfigHash: m.cfg.Hash(), Cluster: cluster}, "", "  ")
	if err != nil {
		return err
	}
	if err := nn.SaveCheckpoint(path, m.Params()); err != nil {
		return err
	}
	return os.WriteFile(sidecarPath(path), append(b, '\n'), 0o644)
}

// ErrNotDL2 means a sidecar is not a DL² one or does not match its hash.
var ErrNotDL2 = errors.New("dl2: not a DL² checkpoint")

// Load reads a checkpoint and its sidecar.
func Load(path string) (*Model, error) {
	b, err := os.ReadFile(sidecarPath(path))
	if err != nil {
		return nil, fmt.Errorf("dl2: load %s: %w", path, err)
	}
	var sc Sidecar
	if err := json.Unmarshal(b, &sc); err != nil {
		return nil, fmt.Errorf("dl2: load %s: %w", sidecarPath(path), err)
	}
	if sc.Family != "dl2" || sc.Config.Hash() != sc.ConfigHash {
		return nil, fmt.Errorf("%w: %s (family %q)", ErrNotDL2, sidecarPath(path), sc.Family)
	}
	if err := sc.Config.Validate(); err != nil {
		return nil, err
	}
	m := NewModel(sc.Config, pipeline.Rand(0, Stage, training.KeyLoad))
	if err := nn.LoadCheckpoint(path, m.Params()); err != nil {
		return nil, fmt.Errorf("dl2: %w", err)
	}
	return m, nil
}

// Open loads a checkpoint as a scheduler.
func Open(path string) (*Scheduler, error) {
	m, err := Load(path)
	if err != nil {
		return nil, err
	}
	return NewScheduler(m), nil
}
