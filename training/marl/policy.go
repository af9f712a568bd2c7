package marl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/nn"
)

// Files of a saved policy.
const (
	CheckpointFile = "policy.ckpt" // nn checkpoint of the parameters
	SidecarFile    = "policy.json" // Sidecar
	sidecarFormat  = "schedlab.marl.policy/1"
)

// Policy is a MARL-GNN network with its configuration. It is independent
// of the cluster: Scheduler builds the graphs of whatever cluster it is
// asked to schedule.
type Policy struct {
	cfg Config
	net *network
}

// streamKey is MARL's first key part under training.Stream (its
// trainings) and schedulers.Stream (its scheduler's draws at evaluation).
const streamKey pipeline.Key = "marl"

// NewPolicy returns an untrained policy whose parameters are drawn from
// pipeline.Rand(seed, training.Stream, streamKey, training.KeyInit).
func NewPolicy(cfg Config, seed uint64) (*Policy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("marl: %w", err)
	}
	return &Policy{cfg: cfg, net: newNetwork(cfg, pipeline.Rand(seed, training.Stream, streamKey, training.KeyInit))}, nil
}

// Config returns the policy's configuration.
func (p *Policy) Config() Config { return p.cfg }

// Params returns the network's parameters (for inspection and tests).
func (p *Policy) Params() *nn.Params { return p.net.ps }

// Sidecar is the JSON file saved beside a checkpoint: what is needed to
// rebuild the network, and hashes that tie the pair together.
type Sidecar struct {
	Format string `json:"format"`
	Family string `json:"family"`
	Config Config `json:"config"`
	// ConfigHash is pipeline.HashJSON of Config.
	ConfigHash string `json:"config_hash"`
	// CheckpointSHA256 is the hex sha256 of the checkpoint file.
	CheckpointSHA256 string `json:"checkpoint_sha256"`
	// Trained describes the training run (cluster, seed, episodes); free
	// form, for people.
	Trained map[string]string `json:"trained,omitempty"`
}

// Save writes the checkpoint and its sidecar into dir (created if needed),
// each atomically.
func (p *Policy) Save(dir string, trained map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ck := filepath.Join(dir, CheckpointFile)
	if err := nn.SaveCheckpoint(ck, p.net.ps); err != nil {
		return fmt.Errorf("marl: %w", err)
	}
	sum, _, err := pipeline.HashFile(ck)
	if err != nil {
		return err
	}
	h, err := pipeline.HashJSON(p.cfg)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(Sidecar{Format: sidecarFormat, Family: "marl", Config: p.cfg, ConfigHash: h, CheckpointSHA256: sum, Trained: trained}, "", "  ")
	if err != nil {
		return err
	}
	return pipeline.WriteFileAtomic(filepath.Join(dir, SidecarFile), append(b, '\n'))
}

// ErrSidecar means a policy directory's sidecar is missing, malformed, of
// another format, or does not match its checkpoint.
var ErrSidecar = errors.New("marl: bad policy sidecar")

// LoadPolicy reads a policy saved by Save. A checkpoint whose parameters
// do not fit the sidecar's architecture fails with an error wrapping
// nn.ErrArchMismatch that names both.
func LoadPolicy(dir string) (*Policy, error) {
	sp := filepath.Join(dir, SidecarFile)
	b, err := os.ReadFile(sp)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSidecar, err)
	}
	var sc Sidecar
	if err := json.Unmarshal(b, &sc); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSidecar, sp, err)
	}
	if sc.Format != sidecarFormat {
		return nil, fmt.Errorf("%w: %s: format %q, want %q", ErrSidecar, sp, sc.Format, sidecarFormat)
	}
	if h, err := pipeline.HashJSON(sc.Config); err != nil || h != sc.ConfigHash {
		return nil, fmt.Errorf("%w: %s: config hash %s does not match its config (%s)", ErrSidecar, sp, sc.ConfigHash, h)
	}
	ck := filepath.Join(dir, CheckpointFile)
	if sum, _, err := pipeline.HashFile(ck); err != nil {
		return nil, err
	} else if sum != sc.CheckpointSHA256 {
		return nil, fmt.Errorf("%w: %s has sha256 %s, the sidecar names %s", ErrSidecar, ck, sum, sc.CheckpointSHA256)
	}
	p, err := NewPolicy(sc.Config, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sp, err)
	}
	if err := nn.LoadCheckpoint(ck, p.net.ps); err != nil {
		a := sc.Config.arch()
		return nil, fmt.Errorf("marl: checkpoint %s does not fit the network of %s (variant %s, jobs %d, inner %d×%d, inter %d×%d, hidden %d): %w",
			ck, sp, a.Variant, a.Jobs, a.InnerLayers, a.InnerDim, a.InterLayers, a.InterDim, a.Hidden, err)
	}
	return p, nil
}

// SchedulerOptions configures a policy's sim.Scheduler.
type SchedulerOptions struct {
	// Sample draws each action from the policy instead of taking the most
	// likely one.
	Sample bool
	// Seed seeds sampling and the server-level variant's random GPU group,
	// through pipeline.Rand(Seed, schedulers.Stream, streamKey).
	Seed uint64
}

// Scheduler returns a sim.Scheduler that places jobs with the policy. Jobs
// go to the scheduler of their pod (datasets.PodOf). Like every scheduler it
// serves one run. Schedulers of one policy may run concurrently (each has
// its own tape and caches and only reads the parameters), but not while
// the policy is being trained.
func (p *Policy) Scheduler(opt SchedulerOptions) sim.Scheduler {
	return &scheduler{pol: p, opt: opt}
}

// LoadScheduler is LoadPolicy followed by Scheduler: what an evaluation
// needs to run a trained policy saved in dir.
func LoadScheduler(dir string, opt SchedulerOptions) (sim.Scheduler, error) {
	p, err := LoadPolicy(dir)
	if err != nil {
		return nil, err
	}
	return p.Scheduler(opt), nil
}

type scheduler struct {
	pol *Policy
	opt SchedulerOptions
	a   *actor
	c   *sim.Cluster
}

// Inferences is the number of policy inferences (one per worker or PS
// placed, plus one per forward and per try of a job that then did not
// fit) made so far; benchmarks divide time by it.
func (s *scheduler) Inferences() int {
	if s.a == nil {
		return 0
	}
	return s.a.calls
}

func (s *scheduler) Name() string { return "marl-" + s.pol.cfg.Variant }

func (s *scheduler) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	if s.a == nil || s.c != st.Cluster {
		cg, err := buildGraphs(st.Cluster, s.pol.cfg.Variant)
		if err != nil {
			return nil, err
		}
		s.c = st.Cluster
		s.a = newActor(newEvaluator(s.pol.net, cg), s.pol.cfg.Jobs, pipeline.Rand(s.opt.Seed, schedulers.Stream, streamKey), !s.opt.Sample)
	}
	return s.a.decide(ctx, st)
}
