package evaluation

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
)

// At the paper's scale an experiment evaluates millions of jobs, and their
// results held as sim.JobResults grow past a gigabyte. With Options.ScratchDir
// each finished cell's results go to a file of their own (CellResult's
// JobsFile) and the cell keeps only what the tables read of them, its
// jobPairs; Report.Write reads the files back a cell at a time.

// jobPairs is what the Wilcoxon note reads of a cell's jobs: how many, a
// hash of their ids in job order (two cells pair job by job exactly when
// both agree), and their JCT and fee in job order, for replicate-0 cells
// only (the note reads no other).
type jobPairs struct {
	n        int
	ids      [sha256.Size]byte
	jct, fee []float64
}

func pairsOf(c Cell, jobs []sim.JobResult) *jobPairs {
	p := &jobPairs{n: len(jobs)}
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, j := range jobs {
		// Each id behind its length: no two id sequences hash the same
		// bytes.
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(j.JobID)))])
		io.WriteString(h, j.JobID)
	}
	h.Sum(p.ids[:0])
	if c.Replicate == 0 {
		p.jct, p.fee = make([]float64, len(jobs)), make([]float64, len(jobs))
		for i, j := range jobs {
			p.jct[i], p.fee[i] = j.JCTS, j.FeeUSD
		}
	}
	return p
}

// pairs is the cell's jobPairs: kept when its jobs went to a file, drawn
// from Jobs otherwise.
func (c *CellResult) pairs() *jobPairs {
	if c.paired != nil {
		return c.paired
	}
	return pairsOf(c.Cell, c.Jobs)
}

// WriteJobs writes a cell's per-job results to path atomically, in the
// form CellResult.JobsFile names: a gob of jobs, which carries every
// float64 bit for bit.
func WriteJobs(path string, jobs []sim.JobResult) error {
	return pipeline.WriteGobAtomic(path, jobs)
}

// readJobs reads the per-job results of a file WriteJobs wrote.
func readJobs(path string) ([]sim.JobResult, error) {
	var jobs []sim.JobResult
	return jobs, pipeline.ReadGob(path, &jobs)
}

// jobs are the cell's per-job results, read back from JobsFile if they
// are there; the error names the cell.
func (c *CellResult) jobs() ([]sim.JobResult, error) {
	if c.JobsFile == "" {
		return c.Jobs, nil
	}
	jobs, err := readJobs(c.JobsFile)
	if err != nil {
		return nil, fmt.Errorf("evaluation: cell %s: its results: %w", c.Cell.Key(), err)
	}
	if c.paired != nil && len(jobs) != c.paired.n {
		return nil, fmt.Errorf("evaluation: cell %s: its results file %s holds %d jobs, the cell evaluated %d", c.Cell.Key(), c.JobsFile, len(jobs), c.paired.n)
	}
	return jobs, nil
}

// keep readies the i-th finished cell for the report: with a scratch
// directory its jobs go to a file there; jobs already in a file (from
// Options.Cells) are read once for their pairs.
func (r *Report) keep(i int, cr *CellResult) error {
	switch {
	case cr.JobsFile != "":
		jobs, err := readJobs(cr.JobsFile)
		if err != nil {
			return fmt.Errorf("its results: %w", err)
		}
		cr.paired = pairsOf(cr.Cell, jobs)
	case r.scratch != "":
		path := filepath.Join(r.scratch, fmt.Sprintf("cell-%06d.gob", i))
		if err := WriteJobs(path, cr.Jobs); err != nil {
			return fmt.Errorf("scratch file of its results: %w", err)
		}
		cr.paired = pairsOf(cr.Cell, cr.Jobs)
		cr.JobsFile, cr.Jobs = path, nil
	}
	return nil
}

// Close removes the files of the cells' results that Run wrote into
// Options.ScratchDir; a report without them has nothing to remove. The
// report's results cannot be written after it.
func (r *Report) Close() error {
	if r.scratch == "" {
		return nil
	}
	err := os.RemoveAll(r.scratch)
	r.scratch = ""
	return err
}
