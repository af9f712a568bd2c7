package daspaper

import (
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/section"
	"github.com/schedlab/schedlab/training"
)

// Settings (train.das) sizes the training of the DAS-paper learned
// schedulers (das, da, da+mc, da+rwgp, dl2, rifling) that das-table1
// names. They train on the training part of das-table1's trace (the first
// 80 %; of it the last fifth validates), never on the jobs the table
// evaluates (plan.TrainingData), under the simulator configuration and
// interference model of the first experiment that names them.
type Settings struct {
	// Cluster the models train on (small, medium, large), each model then
	// evaluated on every cluster (the policies do not depend on the machine
	// count); or EachCluster: every model trained once per cluster it is
	// evaluated on, as in the paper (three times the training).
	Cluster string `mapstructure:"cluster" yaml:"cluster" json:"cluster"`
	// Episodes per learning rate, and jobs per episode (1000 in the paper).
	Episodes    int `mapstructure:"episodes" yaml:"episodes" json:"episodes"`
	SegmentJobs int `mapstructure:"segment_jobs" yaml:"segment_jobs" json:"segment_jobs"`
	// LearningRates of DAS and its ablations, chosen from by validation
	// (the paper's grid: 1e-4, 5e-5, 1e-5, 5e-6, 1e-6).
	LearningRates []float64 `mapstructure:"learning_rates" yaml:"learning_rates" json:"learning_rates"`
	// ValJobs caps the validation jobs simulated after each episode; 0 all.
	ValJobs int `mapstructure:"val_jobs" yaml:"val_jobs" json:"val_jobs"`
	// MinNotFIFO is the least margin by which a trained DAS model's share
	// of validation decisions unlike FIFO-FirstFit's must exceed its
	// untrained reference's (das.UntrainedReference); 0 checks nothing.
	MinNotFIFO float64 `mapstructure:"min_not_fifo" yaml:"min_not_fifo" json:"min_not_fifo"`
}

// EachCluster as train.das.cluster trains every model of a trace-source
// family (das, dl2, rifling) once per cluster it is evaluated on.
const EachCluster = "each"

// MaxLearningRates bounds train.das.learning_rates (one training per
// rate).
const MaxLearningRates = 100

// Section is train.das, declared here for the DAS paper's families (das,
// dl2, rifling), which all read it.
var Section = training.DeclareSection("das", "package daspaper", sectionDefaults, checkSettings)

// checkSettings is train.das's one range check.
func checkSettings(s Settings, e *section.Errs) {
	if !slices.Contains([]string{"small", "medium", "large", EachCluster}, s.Cluster) {
		e.Addf("cluster", "must be small, medium, large or %s, got %q", EachCluster, s.Cluster)
	}
	e.InRange("episodes", s.Episodes, 1, training.MaxEpisodes)
	e.InRange("segment_jobs", s.SegmentJobs, 1, datasets.MaxSyntheticJobs)
	e.InRange("val_jobs", s.ValJobs, 0, datasets.MaxSyntheticJobs)
	if !(s.MinNotFIFO >= 0 && s.MinNotFIFO <= 1) {
		e.Addf("min_not_fifo", "must be in [0, 1], got %v", s.MinNotFIFO)
	}
	if len(s.LearningRates) == 0 || len(s.LearningRates) > MaxLearningRates {
		e.Addf("learning_rates", "give 1 to %d rates, got %d", MaxLearningRates, len(s.LearningRates))
	}
	for i, lr := range s.LearningRates {
		// Adam's step is about lr per parameter: above 1 it diverges.
		if !(lr > 0 && lr <= 1) {
			e.Addf(fmt.Sprintf("learning_rates[%d]", i), "must be in (0, 1], got %v", lr)
		}
	}
}

const sectionDefaults = `# Training of the DAS-paper learned schedulers das-table1 names (das,
# da, da+mc, da+rwgp, dl2, rifling) on the first 80 % of its trace (the
# last fifth of it validates; the evaluated jobs are never seen), on one
# cluster (small, medium, large), each model then evaluated on every
# cluster; or "each": one model per evaluated cluster, as in the paper
# (three times the training; models/<name>/<cluster id>/).
cluster: small
# Episodes per learning rate, of segment_jobs consecutive jobs (the
# paper: 1000), and the learning-rate grid chosen from by validation
# (learning_rates; the paper: 1e-4, 5e-5, 1e-5, 5e-6, 1e-6).
episodes: 1
segment_jobs: 60
learning_rates: [1e-4]
# Validation jobs simulated after each episode; 0 means all.
val_jobs: 30
# A DAS model (das, its ablations, das-mappo, the das-tuning rows) whose
# final policy's share of validation decisions unlike FIFO-FirstFit's
# exceeds the untrained reference's (a network that learned nothing,
# which differs by how it breaks ties) by less than this fails its
# training: it did not learn. 0 checks nothing.
min_not_fifo: 0
`
