package datasets

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// paiTally is an in-memory paiSink: the fuzz target checks the join's
// accounting without paying for Parquet files on every input.
type paiTally struct {
	t    *testing.T
	per  map[string]Accounting
	jobs []Job
	ids  *jobIDs
}

func (p *paiTally) Context() context.Context { return context.Background() }

func (p *paiTally) count(file string, acc, quar int64) {
	a := p.per[file]
	a.Add(Accounting{Read: 1, Accepted: acc, Quarantined: quar})
	p.per[file] = a
}

func (p *paiTally) AcceptRow(file string, row CSVRow, j *Job) (bool, error) {
	if p.ids == nil {
		p.ids = newJobIDs()
	}
	if bf := p.ids.check(file, row.Line, j); bf != nil {
		return false, p.RejectRow(file, row, bf)
	}
	c := *j
	c.Tasks = append([]Task(nil), j.Tasks...)
	p.jobs = append(p.jobs, c)
	p.count(file, 1, 0)
	return true, nil
}

func (p *paiTally) AcceptOther(file string) { p.count(file, 1, 0) }

func (p *paiTally) AcceptNodeRow(file string, row CSVRow, n *ClusterNode) (bool, error) {
	if bf := CheckNode(n); bf != nil {
		return false, p.RejectRow(file, row, bf)
	}
	p.count(file, 1, 0)
	return true, nil
}

func (p *paiTally) RejectRow(file string, row CSVRow, err error) error {
	if row.Line <= 0 || err == nil {
		p.t.Fatalf("%s: rejection at line %d: %v", file, row.Line, err)
	}
	p.count(file, 0, 1)
	return nil
}

func (p *paiTally) EachRow(c *CSVFile, fn func(row CSVRow) error) error {
	for {
		if done, err := nextRow(c, p.RejectRow, fn); done || err != nil {
			return err
		}
	}
}

// csvRows counts the rows a CSVFile yields: lines that are not blank.
func csvRows(b []byte) int64 {
	var n int64
	for _, l := range bytes.Split(b, []byte{'\n'}) {
		if len(bytes.TrimSuffix(l, []byte{'\r'})) > 0 {
			n++
		}
	}
	return n
}

// FuzzPAIRaw joins arbitrary job, task and group-tag tables through an
// in-memory sink (the Parquet side is IngestJobs', tested with it). The
// join must never panic; a file it cannot read is an *InputError;
// otherwise every row of every file is counted once, as accepted or
// quarantined, and every job written has a task and a duration ≥ 0.
func FuzzPAIRaw(f *testing.F) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata/pai_raw", name))
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	f.Add(read("pai_job_table.csv"), read("pai_task_table.csv"), read("pai_group_tag_table.csv"))
	f.Add([]byte("j,i,u,T,1,2\n"), []byte("j,ps,1,T,1,2,100,1,,V100\nj,worker,2.0,T,1,9,100,1,100,V100\n"), []byte("i,u,,g,bert\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, jobs, tasks, tags []byte) {
		content := map[string][]byte{
			filepath.Join(dir, "pai_job_table.csv"):       jobs,
			filepath.Join(dir, "pai_task_table.csv"):      tasks,
			filepath.Join(dir, "pai_group_tag_table.csv"): tags,
		}
		var files []string
		for p, b := range content {
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, p)
		}
		pj := newPAIJoin()
		if err := pj.classify(files); err != nil {
			t.Fatal(err)
		}
		sink := &paiTally{t: t, per: map[string]Accounting{}}
		if err := pj.run(sink, nil); err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *InputError", err)
			}
			return
		}
		for p, b := range content {
			a := sink.per[p]
			if err := a.Check(); err != nil || a.Read != csvRows(b) {
				t.Fatalf("%s: %+v for %d rows (%v)", filepath.Base(p), a, csvRows(b), err)
			}
		}
		if int64(len(sink.jobs)) != sink.per[filepath.Join(dir, "pai_job_table.csv")].Accepted {
			t.Fatalf("%d jobs, accounting %+v", len(sink.jobs), sink.per)
		}
		for _, j := range sink.jobs {
			if len(j.Tasks) == 0 || j.DurationS < 0 {
				t.Fatalf("job %+v", j)
			}
		}
	})
}
