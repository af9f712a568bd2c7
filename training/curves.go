package training

import (
	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// CurvesFile is the name of the learning-curve table a training run writes.
const CurvesFile = "curves.parquet"

// Curve is one row of the curves table (DESIGN.md §2): what one training
// episode of one family and variant achieved. Every learned family writes
// the same schema so that curves of different families can be compared in
// one query. Wall-clock time is not here (it belongs to timings).
type Curve struct {
	Family  string  `parquet:"family" json:"family"`   // das, dl2, rifling, marl, deepsys
	Variant string  `parquet:"variant" json:"variant"` // e.g. das, da+mc; device, server, single
	Cluster string  `parquet:"cluster" json:"cluster"` // the cluster or topology trained on
	Episode int32   `parquet:"episode" json:"episode"` // 0-based
	Split   string  `parquet:"split" json:"split"`     // train or validation
	Return  float64 `parquet:"return" json:"return"`   // undiscounted episode return
	MeanJCT float64 `parquet:"mean_jct_s" json:"mean_jct_s"`
	MeanFee float64 `parquet:"mean_fee" json:"mean_fee"` // dollars; 0 where the family has no fee objective
	// Losses of the updates in the episode (means); 0 when not applicable.
	PolicyLoss float64 `parquet:"policy_loss" json:"policy_loss"`
	ValueLoss  float64 `parquet:"value_loss" json:"value_loss"`
	Entropy    float64 `parquet:"entropy" json:"entropy"`
	// AdamSteps is the optimiser steps the episode's updates took, over
	// all the family's optimisers; 0 where the family does not count.
	AdamSteps int64 `parquet:"adam_steps" json:"adam_steps,omitempty"`
	// NotFIFO is the share of the episode's decisions that started other
	// jobs, or on other servers, than FIFO-FirstFit would have on the same
	// state; nil where the family does not measure it. A policy at 0
	// is FIFO-FirstFit under another name.
	NotFIFO *float64 `parquet:"not_fifo,optional" json:"not_fifo,omitempty"`
	// UntrainedNotFIFO is NotFIFO of the family's untrained reference on
	// the same jobs (a validation row's; das.UntrainedReference): a policy
	// that learned nothing already differs from FIFO-FirstFit by how it
	// breaks ties, so a trained one must exceed this share, not 0; nil
	// where the family has no such reference.
	UntrainedNotFIFO *float64 `parquet:"untrained_not_fifo,optional" json:"untrained_not_fifo,omitempty"`
}

// Row returns c, the run's Family, Variant and Cluster, as the row of
// episode ep (0-based) on split (train or validation) with the episode's
// return and the simulator's mean JCT and fee.
func (c Curve) Row(ep int, split string, ret float64, m sim.Metrics) Curve {
	c.Episode, c.Split = int32(ep), split
	c.Return, c.MeanJCT, c.MeanFee = ret, m.MeanJCTS, m.MeanFeeUSD
	return c
}

// WriteCurves writes rows to path atomically.
func WriteCurves(path string, meta datasets.FileMeta, rows []Curve) error {
	return datasets.WriteParquet(path, meta, rows)
}
