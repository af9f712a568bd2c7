package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExport exports a quick run in every format: the CSV tables have one
// line per Parquet row plus a header, the Parquet copies are identical, the
// Markdown and LaTeX collections hold every table. The run is a copy of
// the shared one (quickRun): export writes into the run's directory.
func TestExport(t *testing.T) {
	t.Parallel()
	dir := quickCopy(t)
	m := readManifest(t, dir)
	rows := map[string]int64{}
	for _, s := range m.Stages {
		for _, o := range s.Outputs {
			rows[o.Name] = o.Rows
		}
	}
	for _, format := range []string{"parquet", "csv", "md", "tex"} {
		out, errs, code := schedlab(t, nil, "export", "--run", dir, "--format", format)
		if code != 0 {
			t.Fatalf("export %s: exit %d: %s", format, code, errs)
		}
		if !strings.Contains(out, filepath.Join(dir, "export", format)) {
			t.Errorf("export %s printed %q", format, out)
		}
	}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(dir, "export", rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for rel, name := range map[string]string{"eval/results.parquet": "eval_results", "eval/metrics.parquet": "eval_metrics", "fit/coefficients.parquet": "fit_coefficients"} {
		lines := strings.Count(read("csv/"+name+".csv"), "\n")
		if int64(lines) != rows[rel]+1 {
			t.Errorf("%s.csv: %d lines, want %d rows + header", name, lines, rows[rel])
		}
		orig, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		if read("parquet/"+name+".parquet") != string(orig) {
			t.Errorf("parquet/%s.parquet is not a copy of %s", name, rel)
		}
	}
	all := read("md/all.md")
	for _, want := range []string{"# das-table1", "# marl-arrivals", "# Jobs summary", "Table III"} {
		if !strings.Contains(all, want) {
			t.Errorf("all.md lacks %q", want)
		}
	}
	if tex := read("tex/all.tex"); !strings.Contains(tex, `\begin{document}`) || !strings.Contains(tex, `\begin{tabular}`) {
		t.Errorf("all.tex is not a LaTeX document with tables")
	}
	if _, _, code := schedlab(t, nil, "export", "--run", dir, "--format", "xls"); code != 2 {
		t.Errorf("unknown format: exit %d, want 2", code)
	}
	if _, _, code := schedlab(t, nil, "export", "--run", t.TempDir(), "--format", "csv"); code != 1 {
		t.Errorf("not a run directory: exit %d, want 1", code)
	}
}
