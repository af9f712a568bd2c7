package marl

import "github.com/schedlab/schedlab/training"

var _ training.Sized = family{}

// trainBytesPerServer is the memory a MARL training holds per server of
// its cluster, measured (docs/measurements.md, "memory of a
// configuration"): the peak resident size of `schedlab run --preset quick
// --only marl-arrivals` grows by 240 to 263 KiB per server from k = 8 to
// 12 to 16 (128, 432, 1,024 servers); the smaller slope is taken, as for
// a lower bound.
const trainBytesPerServer = 240 << 10

// TrainBytesPerServer is trainBytesPerServer, for the run's memory
// estimate.
func (family) TrainBytesPerServer() int64 { return trainBytesPerServer }
