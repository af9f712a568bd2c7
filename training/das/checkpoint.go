package das

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/nn"
)

// Sidecar is the JSON file written beside a checkpoint: the configuration
// that fixes the architecture, its hash, and where the policy was
// trained. A checkpoint is only usable with it.
type Sidecar struct {
	Family     string              `json:"family"` // "das"
	Config     Config              `json:"config"`
	ConfigHash string              `json:"config_hash"`
	Cluster    string              `json:"cluster,omitempty"`
	LR         float64             `json:"learning_rate,omitempty"`
	Norm       daspaper.RewardNorm `json:"reward_norm"`
}

// SidecarPath is the sidecar of the checkpoint at path: the same name
// with .json for its extension.
func SidecarPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".json"
}

// Save writes m's parameters to path (nn's checkpoint format) and the
// sidecar next to it. meta's Config and ConfigHash are filled from m.
func Save(path string, m *Model, meta Sidecar) error {
	meta.Family = "das"
	meta.Config = m.cfg
	meta.ConfigHash = m.cfg.Hash()
	b, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return fmt.Errorf("das: save %s: %w", path, err)
	}
	if err := nn.SaveCheckpoint(path, m.ps); err != nil {
		return err
	}
	if err := pipeline.WriteFileAtomic(SidecarPath(path), append(b, '\n')); err != nil {
		return fmt.Errorf("das: %w", err)
	}
	return nil
}

// ErrNotDAS means a sidecar does not describe a DAS checkpoint, or its
// configuration hash does not match its configuration.
var ErrNotDAS = errors.New("das: not a DAS checkpoint")

// Load reads the checkpoint at path with its sidecar and returns the
// model it describes. A checkpoint whose parameters do not match the
// sidecar's architecture fails with an error wrapping
// nn.ErrArchMismatch that names both.
func Load(path string) (*Model, Sidecar, error) {
	var meta Sidecar
	b, err := os.ReadFile(SidecarPath(path))
	if err != nil {
		return nil, meta, fmt.Errorf("das: load %s: sidecar: %w", path, err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return nil, meta, fmt.Errorf("das: load %s: sidecar %s: %w", path, SidecarPath(path), err)
	}
	if meta.Family != "das" {
		return nil, meta, fmt.Errorf("%w: %s names family %q", ErrNotDAS, SidecarPath(path), meta.Family)
	}
	if err := meta.Config.Validate(); err != nil {
		return nil, meta, fmt.Errorf("das: load %s: %w", path, err)
	}
	if h := meta.Config.Hash(); h != meta.ConfigHash {
		return nil, meta, fmt.Errorf("%w: %s: config hash %s does not match its config (%s)", ErrNotDAS, SidecarPath(path), meta.ConfigHash, h)
	}
	// The values are overwritten by the checkpoint; the seed only fills
	// them first.
	m := NewModel(meta.Config, pipeline.Rand(0, Stage, training.KeyLoad))
	if err := LoadInto(path, m); err != nil {
		return nil, meta, err
	}
	return m, meta, nil
}

// LoadInto reads the checkpoint at path into m's parameters. A checkpoint
// of another architecture (another variant, width, head count or walk
// length) fails with an error wrapping nn.ErrArchMismatch and leaves m
// untouched.
func LoadInto(path string, m *Model) error {
	if err := nn.LoadCheckpoint(path, m.ps); err != nil {
		if errors.Is(err, nn.ErrArchMismatch) {
			return fmt.Errorf("das: %s does not fit a %s model (e=%d, h=%d, L=%d): %w", path, m.cfg.Variant, m.cfg.Hidden, m.cfg.Heads, m.cfg.WalkLength, err)
		}
		return err
	}
	return nil
}
