package marl

import (
	"github.com/schedlab/schedlab/internal/section"
	"github.com/schedlab/schedlab/training"
)

// Settings (train.marl) sizes the training of the MARL-GNN variants and
// of the DeepSys and Atte baselines (training/deepsys reads it too), on
// the evaluated cluster at the paper's load.
type Settings struct {
	// Episodes of MARL training (passes over the training jobs); 0 means
	// the family's default.
	Episodes int `mapstructure:"episodes" yaml:"episodes" json:"episodes"`
	// AtteEpisodes of Atte training; 0 means the default.
	AtteEpisodes int `mapstructure:"atte_episodes" yaml:"atte_episodes" json:"atte_episodes"`
	// Intervals of arrivals in the training workload (90 % of each pod's
	// jobs train, 10 % validate, as in the paper).
	Intervals int `mapstructure:"intervals" yaml:"intervals" json:"intervals"`
	// Arrivals is the training workload's arrival pattern: ArrivalsUniform
	// or ArrivalsGoogle (the run's Google 2011 arrivals table, MARL
	// §VI-A's "job arrival pattern … extracted from Google cluster
	// traces"); "" means uniform.
	Arrivals string `mapstructure:"arrivals" yaml:"arrivals" json:"arrivals,omitempty"`
	// Rollouts of MARL training collected side by side per update
	// (Config.Rollouts); 0 (the default) and 1 are one episode at a
	// time. Omitted from the JSON at 0, so that a configuration without
	// the key hashes as before it existed.
	Rollouts int `mapstructure:"rollouts" yaml:"rollouts" json:"rollouts,omitempty"`
}

// Arrival patterns of MARL training workloads (Settings.Arrivals).
const (
	ArrivalsUniform = "uniform"
	ArrivalsGoogle  = "google"
)

// MaxIntervals bounds train.marl.intervals: 200 days of 30-minute
// intervals.
const MaxIntervals = 10_000

// Section is train.marl, declared here for the MARL paper's families
// (marl, deepsys), which both read it.
var Section = training.DeclareSection("marl", "package marl", sectionDefaults, checkSettings)

// checkSettings is train.marl's one range check.
func checkSettings(s Settings, e *section.Errs) {
	e.InRange("episodes", s.Episodes, 0, training.MaxEpisodes)
	e.InRange("atte_episodes", s.AtteEpisodes, 0, training.MaxEpisodes)
	e.InRange("intervals", s.Intervals, 1, MaxIntervals)
	if err := CheckRollouts(s.Rollouts); err != nil {
		e.Add("rollouts", err)
	}
	if a := s.Arrivals; a != "" && a != ArrivalsUniform && a != ArrivalsGoogle {
		e.Addf("arrivals", "must be %s or %s, got %q", ArrivalsUniform, ArrivalsGoogle, a)
	}
}

const sectionDefaults = `# Training of the learned schedulers marl-arrivals names, on its fat-tree
# and load, with job speeds from the fitted interference model: episodes
# of MARL training (0: the family's default, 30) and of Atte
# (atte_episodes; 0: 20),
# over intervals of arrivals (90 % of each pod's jobs train).
episodes: 3
atte_episodes: 3
intervals: 10
# The training jobs' arrival pattern: uniform (the paper's load per pod
# in every interval) or google (each interval's count follows the run's
# ingested Google 2011 arrivals table, scaled to the same mean load: the
# MARL paper's training, §VI-A; needs datasets.ingest of google-2011).
arrivals: uniform
# Episodes of MARL training collected side by side per update (0 to
# 64; 0, the default, and 1 both mean one episode at a time, an update
# per interval): at each 30-minute decision point one update learns
# from all of them (the mean of their gradients) and Adam takes one
# step. The episodes go in iterations of this many, each rollout on a
# worker the run lends when idle; the model's bytes depend on this
# value, never on the workers. Each rollout holds about 0.35 GB at
# k = 20.
rollouts: 0
`
