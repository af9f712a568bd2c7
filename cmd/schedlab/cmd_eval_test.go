package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEvalCommand(t *testing.T) {
	dir := t.TempDir()
	arr := filepath.Join(dir, "arrivals.csv")
	if err := os.WriteFile(arr, []byte("interval,start_s,jobs\n0,600,10\n1,2400,30\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string // in stdout
	}{
		{"das-table1", []string{"--experiment", "das-table1", "--synthetic-jobs", "200", "--schedulers", "FIFO-FF,tetris", "--workers", "1"},
			[]string{"| FIFO-FirstFit |", "| Tetris (paper) | 813.480 |", "200 jobs read"}},
		{"das-table1-standalone", []string{"--experiment", "das-table1", "--synthetic-jobs", "200", "--schedulers", "FIFO-FF", "--workers", "1", "--speed", "standalone"},
			[]string{"| FIFO-FirstFit |", "standalone speed (trace replay: jobs run for their recorded durations), no calibrated environment"}},
		{"marl-arrivals", []string{"--experiment", "marl-arrivals", "--fattree-k", "4", "--intervals", "2", "--jobs-per-pod", "3", "--schedulers", "lb,lif", "--arrivals", arr},
			[]string{"Google JCT (intervals)", "| Load Balancing |", "fattree-k4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name)
			stdout, stderr, code := schedlab(t, nil, append([]string{"eval", "--out", out}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, f := range []string{"eval/results.parquet", "eval/metrics.parquet", "eval/timings.parquet",
				"tables/" + tc.args[1] + ".md", "tables/" + tc.args[1] + ".csv", "tables/" + tc.args[1] + ".tex",
				"plots/" + tc.args[1] + ".svg", "plots/" + tc.args[1] + ".png"} {
				if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
					t.Errorf("%s: %v", f, err)
				}
			}
		})
	}
}

func TestEvalUsage(t *testing.T) {
	out := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string // in stderr, or stdout for --help
	}{
		{[]string{"eval", "--experiment", "das-magic", "--out", out}, 2, "experiments: das-table1, das-load, das-tuning, marl-arrivals"},
		{[]string{"eval", "--experiment", "das-wilcoxon", "--out", out}, 2, `unknown experiment "das-wilcoxon"`}, // derived: made by schedlab run
		{[]string{"eval", "--experiment", "das-table1", "--schedulers", "fifo-ff,oracle", "--out", out}, 2, `unknown scheduler "oracle" (heuristics: fifo-firstfit, fifo-loadbalance`},
		{[]string{"eval", "--experiment", "das-table1"}, 2, "--experiment and --out are required"},
		{[]string{"eval", "--experiment", "das-table1", "--jobs", filepath.Join(out, "none.parquet"), "--out", out}, 2, "none.parquet"},
		{[]string{"eval", "--experiment", "marl-arrivals", "--fattree-k", "5", "--out", out}, 2, "cluster.k: must be even"},
		{[]string{"eval", "--experiment", "das-table1", "--speed", "fast", "--out", out}, 2, `--speed: must be model or standalone, got "fast"`},
		{[]string{"eval", "--experiment", "das-table1", "--environment", filepath.Join(out, "environment-das-paper.json"), "--out", out}, 2, `--environment: `},
		{[]string{"eval", "--help"}, 0, "Experiments:"},
	} {
		stdout, stderr, code := schedlab(t, nil, tc.args...)
		if code != tc.code || !strings.Contains(stderr+stdout, tc.want) {
			t.Errorf("schedlab %v: exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
