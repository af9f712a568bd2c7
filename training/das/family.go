package das

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
)

func init() { training.Register(family{}) }

// NameMAPPO is the full DAS model trained by TrainerMAPPO, beside das
// (TrainerAlgorithm1).
const NameMAPPO = "das-mappo"

// TrainerOf names how the family's variant name is trained: "MAPPO" for
// das-mappo, "Algorithm 1" for every other variant, "" for a name that is
// not one.
func TrainerOf(name schedulers.Name) string {
	switch {
	case name == NameMAPPO:
		return "MAPPO"
	case slices.ContainsFunc(family{}.Variants(), func(v training.Variant) bool { return v.Info.Name == name }):
		return "Algorithm 1"
	}
	return ""
}

// TuningNames are the rows of das-tuning (DAS Fig. 5): DAS with h
// attention heads (das-h1 .. das-h8, τ = 8) and with τ placements of
// history (das-tau4 .. das-tau10, h = 4). das-h4 and das-tau8 are the
// default model, das.
func TuningNames() []string {
	return []string{"das-h1", "das-h2", "das-h4", "das-h8", "das-tau4", "das-tau6", "das-tau8", "das-tau10"}
}

// TuningParams returns the heads h and history τ of a das-tuning row name
// (das-h<h> or das-tau<τ>), and false for any other name.
func TuningParams(name string) (heads, history int, ok bool) {
	var v int
	if _, err := fmt.Sscanf(name, "das-h%d", &v); err == nil && name == fmt.Sprintf("das-h%d", v) && v > 0 {
		return v, 8, true
	}
	if _, err := fmt.Sscanf(name, "das-tau%d", &v); err == nil && name == fmt.Sprintf("das-tau%d", v) && v > 0 {
		return 4, v, true
	}
	return 0, 0, false
}

// Axes of das-tuning's plot (DAS Fig. 5): the heads at the default
// history, and the history at the default heads.
const (
	axisHeads   = "attention heads h (τ = 8)"
	axisHistory = "GP history τ (h = 4)"
)

// tuningOf places the das-tuning row name (h heads, τ history) on its
// axis: a das-h row on the heads axis, a das-tau row on the history axis
// (das-h4 and das-tau8 are the same model, one point on each).
func tuningOf(name string, h, tau int) *schedulers.Tuning {
	if strings.HasPrefix(name, "das-tau") {
		return &schedulers.Tuning{Axis: axisHistory, X: float64(tau)}
	}
	return &schedulers.Tuning{Axis: axisHeads, X: float64(h)}
}

// family is DAS and its ablations, and the das-tuning rows.
type family struct{}

func (family) Name() string            { return "das" }
func (family) Source() training.Source { return training.SourceTrace }
func (family) Section() string         { return "das" }

func (family) Variants() []training.Variant {
	vs := []training.Variant{
		{Info: schedulers.Info{Name: VariantDAS, Display: "DAS", Doc: "DAS: ordering agent + RWGP placement agent with gate, trained as the paper's Algorithm 1 (the full model)"}},
		{Info: schedulers.Info{Name: VariantDA, Display: "DA", Doc: "DAS ablation: no gate, MLP placement"}},
		{Info: schedulers.Info{Name: VariantDAMC, Display: "DA+MC", Doc: "DAS ablation: gate, MLP placement"}},
		{Info: schedulers.Info{Name: VariantDARWGP, Display: "DA+RWGP", Doc: "DAS ablation: no gate, RWGP placement"}},
		{Info: schedulers.Info{Name: NameMAPPO, Display: "DAS (MAPPO)", Doc: "DAS trained by one MAPPO update per episode (a V(O) critic, GAE, epochs of minibatches) instead of Algorithm 1"}},
	}
	d := DefaultConfig()
	for _, n := range TuningNames() {
		h, tau, _ := TuningParams(n)
		v := training.Variant{Info: schedulers.Info{Name: schedulers.Name(n), Display: fmt.Sprintf("DAS (h=%d, τ=%d)", h, tau),
			Doc:    fmt.Sprintf("das-tuning: DAS with h=%d heads and τ=%d placements of history", h, tau),
			Tuning: tuningOf(n, h, tau)}}
		if h == d.Heads && tau == d.History {
			v.Model = VariantDAS
		}
		vs = append(vs, v)
	}
	return vs
}

func (family) Configure(s training.Sections) training.Config {
	return daspaper.FromSection(daspaper.Section.Get(s))
}

func (family) Files(v schedulers.Name) []string {
	return []string{string(v) + ".ckpt", string(v) + ".json", training.CurvesFile}
}

func (f family) Train(ctx context.Context, spec training.TrainSpec) error {
	pc, ok := spec.Config.(*daspaper.PaperConfig)
	if !ok {
		return fmt.Errorf("das: config is %T, want *daspaper.PaperConfig", spec.Config)
	}
	cfg := DefaultConfig()
	cfg.Variant = string(spec.Variant)
	if h, tau, ok := TuningParams(cfg.Variant); ok {
		cfg.Variant, cfg.Heads, cfg.History = VariantDAS, h, tau
	}
	if cfg.Variant == NameMAPPO {
		cfg.Variant, cfg.Trainer = VariantDAS, TrainerMAPPO
	}
	cfg.Episodes, cfg.SegmentJobs, cfg.ValJobs, cfg.LearningRates = pc.Episodes, pc.SegmentJobs, pc.ValJobs, pc.LearningRates
	split, err := daspaper.NewSplit(spec.Data.Train, spec.Data.Val, spec.Sim)
	if err != nil {
		return err
	}
	done, total := 0, cfg.Episodes*len(cfg.LearningRates)
	res, err := Train(ctx, cfg, split, TrainOptions{Cluster: spec.Cluster, ClusterName: spec.ClusterName, Sim: spec.Sim, Interference: spec.Interference, Seed: spec.Seed,
		Resume: spec.Resume,
		OnEpisode: func(lr float64, rows []training.Curve) {
			// Counted from the episode, not by calls: a resumed training
			// is not called for the episodes done before.
			done = slices.Index(cfg.LearningRates, lr)*cfg.Episodes + int(rows[0].Episode) + 1
			spec.Step(done, total, rows...)
		}})
	if err != nil {
		return err
	}
	best := res.Best()
	if share, ref := best.FinalVal.NotFIFO, res.Untrained.NotFIFO; pc.MinNotFIFO > 0 && share-ref < pc.MinNotFIFO {
		return fmt.Errorf("das: %s on %s: the trained policy (lr %g) differs from FIFO-FirstFit on %.1f %% of %d validation decisions, the untrained reference on %.1f %%: a margin under train.das.min_not_fifo = %g; it did not learn: train longer or on a wider learning-rate grid",
			spec.Variant, spec.ClusterName, best.LR, 100*share, best.FinalVal.Decisions, 100*ref, pc.MinNotFIFO)
	}
	files := f.Files(spec.Variant)
	if err := Save(filepath.Join(spec.Dir, files[0]), best.Model, Sidecar{Cluster: spec.ClusterName, LR: best.LR, Norm: split.Norm}); err != nil {
		return err
	}
	return training.WriteCurves(filepath.Join(spec.Dir, training.CurvesFile), spec.Meta, best.Curves)
}

func (f family) Open(v schedulers.Name, dir string, _ schedulers.Options) (sim.Scheduler, error) {
	_, mv := training.MustVariant(v)
	return Open(filepath.Join(dir, f.Files(mv.ModelName())[0]))
}
