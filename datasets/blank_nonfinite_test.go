package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readerFixtures are each registered reader's inputs under testdata and
// where a numeric field of a data row is: the file (base name), its
// 1-based line and 0-based column, and the separator.
var readerFixtures = []struct {
	source string
	dir    string
	file   string
	line   int
	col    int
	sep    string
}{
	{SourceAlibabaV2023, "alibaba-v2023", "openb_pod_list_default.csv", 2, 1, ","},
	{SourceElasticFlow, "elasticflow", "cluster01.csv", 2, 2, ","},
	{SourceGoogle2011, "google", "part-00000-of-00002.csv", 1, 0, ","},
	{SourcePAISim, "pai-sim", "simulator_jobs.csv", 2, 13, ","},
	{SourcePAIV2020, "pai_raw", "pai_job_table.csv", 1, 4, ","},
	{SourcePhillyGavel, "philly-gavel", "vc01.trace", 1, 5, "\t"},
	{SourceTiresias, "tiresias", "trace.csv", 2, 5, ","},
}

// copyFixture copies the reader's testdata into a new directory, edit
// applied to every plain-text file, and returns the inputs.
func copyFixture(t *testing.T, dir string, edit func(name, body string) string) []string {
	t.Helper()
	src := filepath.Join("testdata", dir)
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var inputs []string
	for _, e := range ents {
		if e.Name() == "LICENSE" || e.Name() == "n2g4.csv" { // a cluster spec, not a trace
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(e.Name(), ".gz") {
			b = []byte(edit(e.Name(), string(b)))
		}
		p := filepath.Join(out, e.Name())
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, p)
	}
	return inputs
}

// ingestFixture is ingestTo that also reads back the quarantine.
func ingestFixture(t *testing.T, source string, inputs []string) (*Report, []Rejected, error) {
	t.Helper()
	rep, out, err := ingestTo(t, source, inputs...)
	if err != nil {
		return nil, nil, err
	}
	q, err := ReadParquet[Rejected](filepath.Join(out, QuarantineFile))
	if err != nil {
		t.Fatal(err)
	}
	return rep, q, nil
}

// TestEveryReaderSkipsBlankLines: empty and whitespace-only lines between
// every pair of lines of every registered reader's fixture leave its
// accounting as it was: they are neither rows read nor quarantined.
func TestEveryReaderSkipsBlankLines(t *testing.T) {
	for _, f := range readerFixtures {
		t.Run(f.source, func(t *testing.T) {
			plain, _, err := ingestFixture(t, f.source, copyFixture(t, f.dir, func(_, b string) string { return b }))
			if err != nil {
				t.Fatal(err)
			}
			blank := copyFixture(t, f.dir, func(_, b string) string {
				return strings.ReplaceAll(b, "\n", "\n\n \t\n")
			})
			got, q, err := ingestFixture(t, f.source, blank)
			if err != nil {
				t.Fatalf("with blank lines: %v", err)
			}
			if got.Total != plain.Total {
				t.Errorf("with blank lines %+v, without %+v; quarantined: %+v", got.Total, plain.Total, q)
			}
		})
	}
	// A Tiresias cluster spec (replay --cluster) too.
	p := filepath.Join(t.TempDir(), "n2g4.csv")
	if err := os.WriteFile(p, []byte("\nnum_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n \n1,2,4,40,256\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err := ReadTiresiasCluster(p); err != nil || c.Switches != 1 || c.NodesPerSwitch != 2 {
		t.Errorf("cluster spec with blank lines: %+v, %v", c, err)
	}
}

// TestEveryReaderNamesNonFinite: NaN, +Inf and −Inf in a numeric field
// of every registered reader's fixture are refused naming the file, the
// line and the field: a quarantined row, or an error saying them.
func TestEveryReaderNamesNonFinite(t *testing.T) {
	for _, f := range readerFixtures {
		for _, v := range []string{"NaN", "+Inf", "-Inf"} {
			t.Run(f.source+"/"+v, func(t *testing.T) {
				inputs := copyFixture(t, f.dir, func(name, b string) string {
					if name != f.file {
						return b
					}
					lines := strings.Split(b, "\n")
					cols := strings.Split(lines[f.line-1], f.sep)
					cols[f.col] = v
					lines[f.line-1] = strings.Join(cols, f.sep)
					return strings.Join(lines, "\n")
				})
				rep, q, err := ingestFixture(t, f.source, inputs)
				if err != nil {
					if msg := err.Error(); !strings.Contains(msg, f.file) {
						t.Errorf("error %q does not name the file", msg)
					}
					return
				}
				for _, r := range q {
					if filepath.Base(r.File) == f.file && r.Line == int64(f.line) {
						if r.Field == "" {
							t.Errorf("quarantined without a field: %+v", r)
						}
						return
					}
				}
				t.Errorf("%s at %s:%d column %d: not quarantined there (%+v; quarantine %+v)", v, f.file, f.line, f.col, rep.Total, q)
			})
		}
	}
	p := filepath.Join(t.TempDir(), "n2g4.csv")
	if err := os.WriteFile(p, []byte("num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n1,2,4,40,NaN\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTiresiasCluster(p); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "mem_p_node") {
		t.Errorf("cluster spec with NaN memory: %v, want an error naming the file and mem_p_node", err)
	}
}
