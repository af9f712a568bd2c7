package deepsys

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/nn"
)

// Files of a saved model.
const (
	CheckpointFile = "model.ckpt"
	SidecarFile    = "model.json"
	sidecarFormat  = "schedlab.deepsys.model/1"
)

// Variants (values of `schedlab train --family deepsys --variant`).
const (
	VariantDeepSys = "deepsys"
	VariantAtte    = "atte"
)

// Sidecar describes a saved model.
type Sidecar struct {
	Format           string       `json:"format"`
	Variant          string       `json:"variant"`
	Speed            *SpeedConfig `json:"speed,omitempty"`
	Atte             *AtteConfig  `json:"atte,omitempty"`
	CheckpointSHA256 string       `json:"checkpoint_sha256"`
}

// ErrSidecar means a model directory's sidecar is missing, malformed or
// does not match its checkpoint.
var ErrSidecar = errors.New("deepsys: bad model sidecar")

func save(dir string, ps *nn.Params, sc Sidecar) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ck := filepath.Join(dir, CheckpointFile)
	if err := nn.SaveCheckpoint(ck, ps); err != nil {
		return err
	}
	sum, _, err := pipeline.HashFile(ck)
	if err != nil {
		return err
	}
	sc.Format, sc.CheckpointSHA256 = sidecarFormat, sum
	b, err := json.MarshalIndent(sc, "", "  ")
	if err != nil {
		return err
	}
	return pipeline.WriteFileAtomic(filepath.Join(dir, SidecarFile), append(b, '\n'))
}

// Save writes the speed model into dir.
func (m *SpeedModel) Save(dir string) error {
	cfg := m.cfg
	return save(dir, m.ps, Sidecar{Variant: VariantDeepSys, Speed: &cfg})
}

// Save writes Atte into dir.
func (a *Atte) Save(dir string) error {
	cfg := a.cfg
	return save(dir, a.ps, Sidecar{Variant: VariantAtte, Atte: &cfg})
}

// model is what a variant's saved form restores: the parameters a
// checkpoint fills, and the scheduler that decides with them.
type model interface {
	Params() *nn.Params
	Scheduler() sim.Scheduler
}

// Load reads a model saved by Save and returns its scheduler.
func Load(dir string) (sim.Scheduler, error) {
	sp := filepath.Join(dir, SidecarFile)
	b, err := os.ReadFile(sp)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSidecar, err)
	}
	var sc Sidecar
	if err := json.Unmarshal(b, &sc); err != nil || sc.Format != sidecarFormat {
		return nil, fmt.Errorf("%w: %s: format %q (%v)", ErrSidecar, sp, sc.Format, err)
	}
	ck := filepath.Join(dir, CheckpointFile)
	if sum, _, err := pipeline.HashFile(ck); err != nil {
		return nil, err
	} else if sum != sc.CheckpointSHA256 {
		return nil, fmt.Errorf("%w: %s has sha256 %s, the sidecar names %s", ErrSidecar, ck, sum, sc.CheckpointSHA256)
	}
	rng := rand.New(rand.NewPCG(0, 0)) // overwritten by the checkpoint
	var m model
	switch {
	case sc.Variant == VariantDeepSys && sc.Speed != nil:
		m, err = NewSpeedModel(*sc.Speed, rng)
	case sc.Variant == VariantAtte && sc.Atte != nil:
		m, err = NewAtte(*sc.Atte, rng)
	default:
		return nil, fmt.Errorf("%w: %s: variant %q without its configuration", ErrSidecar, sp, sc.Variant)
	}
	if err != nil {
		return nil, err
	}
	if err := nn.LoadCheckpoint(ck, m.Params()); err != nil {
		return nil, fmt.Errorf("deepsys: %s does not fit %s: %w", ck, sp, err)
	}
	return m.Scheduler(), nil
}

// TrainDeepSys logs the heuristics' placements of jobs on c and fits a
// speed model to them; it returns the model and the final training MSE.
func TrainDeepSys(ctx context.Context, cfg SpeedConfig, c *sim.Cluster, jobs []datasets.Job, simCfg sim.Config, model sim.Interference, seed uint64) (*SpeedModel, float64, error) {
	m, err := NewSpeedModel(cfg, seedRand(seed, keySpeed, training.KeyInit))
	if err != nil {
		return nil, 0, err
	}
	samples, err := Collect(ctx, c, jobs, DefaultHeuristics, simCfg, model)
	if err != nil {
		return nil, 0, err
	}
	mse, err := m.Fit(ctx, samples, seedRand(seed, keySpeed, keyShuffle))
	return m, mse, err
}
