package simtest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"

	"github.com/schedlab/schedlab/sim"
)

// Digest is the SHA-256 of a run written record by record: a record is
// the numbers added since the last End, each as a little-endian 64-bit
// word (a float by its bits), and strings as their bytes. The golden
// tests of the engine and of the schedulers pin its hex Sum, so the
// encoding of each method is part of every recorded digest.
type Digest struct {
	h   hash.Hash
	buf []byte
}

// NewDigest returns an empty digest.
func NewDigest() *Digest { return &Digest{h: sha256.New()} }

// Float adds x's bits.
func (d *Digest) Float(x float64) {
	d.buf = binary.LittleEndian.AppendUint64(d.buf, math.Float64bits(x))
}

// Int adds x as a signed 64-bit word.
func (d *Digest) Int(x int) { d.buf = binary.LittleEndian.AppendUint64(d.buf, uint64(int64(x))) }

// Text adds s's bytes (no length).
func (d *Digest) Text(s string) { d.buf = append(d.buf, s...) }

// Placements adds each placement's job and then its slots' server and
// socket.
func (d *Digest) Placements(pl []sim.Placement) {
	for _, p := range pl {
		d.Int(p.Job)
		for _, sl := range p.Slots {
			d.Int(sl.Server)
			d.Int(sl.Socket)
		}
	}
}

// Totals adds res's metrics (the job and pruned counts, then the mean,
// median and 95th-percentile JCT, mean fee, queueing and slowdown, the
// makespan and the GPU utilisation) and its decision count.
func (d *Digest) Totals(res *sim.Result) {
	m := res.Metrics
	d.Int(m.Jobs)
	d.Int(m.Pruned)
	for _, x := range [...]float64{m.MeanJCTS, m.P50JCTS, m.P95JCTS, m.MeanFeeUSD, m.MeanQueueS, m.MeanSlowdown, m.MakespanS, m.GPUUtil} {
		d.Float(x)
	}
	d.Int(res.Decisions)
}

// End hashes the record and starts the next.
func (d *Digest) End() {
	d.h.Write(d.buf)
	d.buf = d.buf[:0]
}

// Sum is the hex SHA-256 of the records ended so far.
func (d *Digest) Sum() string { return hex.EncodeToString(d.h.Sum(nil)) }
