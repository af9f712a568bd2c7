package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/internal/duckdbtest"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/stages"
)

// The test binary doubles as the schedlab binary when this variable is set,
// so tests can run the CLI in a subprocess with its own environment.
const execVar = "SL_TEST_EXEC_SCHEDLAB"

// killVar names a stage after which the subprocess SIGKILLs itself.
const killVar = "SL_TEST_KILL_AFTER_STAGE"

// interruptVar names a stage after which the subprocess sends itself
// SIGINT (Ctrl-C).
const interruptVar = "SL_TEST_INTERRUPT_AFTER_STAGE"

// signalVar (INT or TERM) makes the subprocess send itself that signal
// as soon as it catches signals, before the command runs.
const signalVar = "SL_TEST_SIGNAL_AT_START"

func TestMain(m *testing.M) {
	if os.Getenv(execVar) == "1" {
		if stage := os.Getenv(killVar); stage != "" {
			afterStageHook = func(s string) {
				if s == stage {
					syscall.Kill(os.Getpid(), syscall.SIGKILL)
				}
			}
		}
		if stage := os.Getenv(interruptVar); stage != "" {
			afterStageHook = func(s string) {
				if s == stage {
					syscall.Kill(os.Getpid(), syscall.SIGINT)
				}
			}
		}
		if sig := os.Getenv(signalVar); sig != "" {
			signalsCaught = func(ctx context.Context) {
				syscall.Kill(os.Getpid(), map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM}[sig])
				<-ctx.Done() // delivered: the command starts interrupted
			}
		}
		os.Exit(execute(os.Args[1:]))
	}
	// The in-process tests read the configuration's environment layer from
	// this process: a SCHEDLAB_* variable the developer (or CI) has set
	// would be a layer no test asked for, so none reaches them.
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, envPrefix+"_") {
			os.Unsetenv(name)
		}
	}
	code := m.Run()
	quick.cleanup()
	table1.cleanup()
	os.Exit(code)
}

// schedlab runs the CLI in a subprocess and returns stdout, stderr and the
// exit status.
//
// Tests that only run such subprocesses (and read-only shared fixtures),
// writing under their own t.TempDir, call t.Parallel: they run two at a
// time once the other tests are done, so that this package, the last
// whose tests make test starts, keeps both cores busy after the others
// have finished. Tests that change the process (environment variables,
// os.Stdout, hooks, in-process execute, GOMAXPROCS) or measure time or
// signals, or count on a dead process's PID staying unused, stay
// sequential.
func schedlab(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	out, errs, code, err := runSchedlab(env, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out, errs, code
}

// runSchedlab is schedlab without a *testing.T, for fixtures shared by
// several tests; err is a failure to start or wait for the subprocess,
// not a non-zero exit status.
func runSchedlab(env []string, args ...string) (string, string, int, error) {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(cleanEnv(), execVar+"=1", raceOptions())
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code, err = ee.ExitCode(), nil
	}
	return out.String(), errb.String(), code, err
}

// raceOptions is the subprocess's GORACE: the developer's options, and no
// sleep at exit. Under -race the race runtime sleeps a second before a
// process exits (atexit_sleep_ms, default 1000) so that goroutines still
// running can show a race; these tests start some 130 subprocesses, so
// that sleep alone was about two minutes of this package's wall time. A race
// while the command runs is still reported, with exit status 66, which
// fails the tests that check the status; what is given up is a race in a
// goroutine still running as the command exits. Without -race GORACE is
// ignored.
func raceOptions() string {
	return "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")
}

// cleanEnv drops SCHEDLAB_* variables the developer may have set (and
// GORACE, which raceOptions sets).
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envPrefix+"_") && !strings.HasPrefix(kv, "GOMAXPROCS=") && !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	return env
}

// quick is one `schedlab run` of the quick preset with every default (two
// workers), made once for the tests that only need such a run: before, six
// tests each ran it themselves, the slowest part of make test. Tests that
// write into a run directory (a re-run, an export) take a copy.
var quick = runFixture{what: "the shared quick run", args: func(out string) []string {
	return []string{"run", "--preset", "quick", "--out", out, "--log-level", "warn"}
}}

// table1 is one fast das-table1 eval (TestEvalCommand's first case),
// made once for that test and for the tests that start from such an
// eval's directory and then change it (each takes a copy): before, each
// ran an eval of its own.
var table1 = runFixture{what: "the shared das-table1 eval", args: func(out string) []string {
	return append([]string{"eval", "--out", out}, table1Args...)
}}

// table1Args are the shared das-table1 eval's flags but --out: evalArgs'
// eval with Tetris too.
var table1Args = []string{"--experiment", "das-table1", "--synthetic-jobs", "200", "--schedulers", "FIFO-FF,tetris", "--workers", "1"}

// runFixture is a schedlab command, run once (on first use) into a
// directory of its own that the tests share.
type runFixture struct {
	what   string
	args   func(out string) []string // the command line, writing into out
	once   sync.Once
	base   string // the temporary directory holding the run, removed by TestMain
	dir    string
	stdout string // the command's
	err    error
}

// quickRun returns the shared quick run's directory, running it on first
// use. Callers must not write under it (quickCopy gives a writable copy).
func quickRun(t *testing.T) string {
	t.Helper()
	return quick.get(t)
}

// get returns the fixture's directory, running its command on first use.
func (f *runFixture) get(t *testing.T) string {
	t.Helper()
	f.once.Do(func() {
		f.base, f.err = os.MkdirTemp("", "schedlab-fixture-")
		if f.err != nil {
			return
		}
		f.dir = filepath.Join(f.base, "run")
		var errs string
		var code int
		var err error
		f.stdout, errs, code, err = runSchedlab(nil, f.args(f.dir)...)
		if err == nil && code != 0 {
			err = fmt.Errorf("exit %d: %s", code, errs)
		}
		f.err = err
	})
	if f.err != nil {
		t.Fatalf("%s: %v", f.what, f.err)
	}
	return f.dir
}

func (f *runFixture) cleanup() {
	if f.base != "" {
		os.RemoveAll(f.base)
	}
}

// quickCopy returns a copy of the shared quick run in a directory of its
// own: every file, the runner's records under .schedlab/ included, with
// its bytes (a stage's cache is valid by its outputs' hashes, not by where
// they lie or when they were written).
func quickCopy(t *testing.T) string {
	t.Helper()
	return quick.copy(t)
}

// copy returns a writable copy of the fixture's directory, as quickCopy.
func (f *runFixture) copy(t *testing.T) string {
	t.Helper()
	src, dst := f.get(t), filepath.Join(t.TempDir(), "run")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatalf("copying %s: %v", f.what, err)
	}
	return dst
}

func TestConfigLayers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	os.WriteFile(file, []byte("seed: 5\nworkers: 3\ndatasets:\n  synthetic:\n    jobs: 300\n"), 0o644)
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want map[string]string // key: expected YAML line
	}{
		{"defaults", nil, nil, map[string]string{"preset": "preset: quick", "seed": "seed: 1", "jobs": "jobs: 2000"}},
		{"preset", nil, []string{"--preset", "nightly"}, map[string]string{"preset": "preset: nightly", "jobs": "jobs: 20000"}},
		{"file over preset", nil, []string{"--preset", "nightly", "--config", file}, map[string]string{"seed": "seed: 5", "jobs": "jobs: 300"}},
		{"env over file", []string{"SCHEDLAB_SEED=9", "SCHEDLAB_DATASETS_SYNTHETIC_JOBS=42"}, []string{"--config", file},
			map[string]string{"seed": "seed: 9", "jobs": "jobs: 42", "workers": "workers: 3"}},
		{"env list", []string{"SCHEDLAB_SUMMARY_QUANTILES=0.25,0.75"}, nil, map[string]string{"q": "- 0.25\n        - 0.75"}},
		{"env preset", []string{"SCHEDLAB_PRESET=paper"}, nil, map[string]string{"preset": "preset: paper"}},
		{"speed default", nil, nil, map[string]string{"speed": "sim:\n    speed: model\n    environment: \"\""}},
		{"env speed", []string{"SCHEDLAB_SIM_SPEED=standalone"}, nil, map[string]string{"speed": "speed: standalone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := schedlab(t, tc.env, append([]string{"config", "show"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			for k, line := range tc.want {
				if !strings.Contains(out, line) {
					t.Errorf("%s: output lacks %q:\n%s", k, line, out)
				}
			}
		})
	}
}

func TestBadConfigNamesKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"unknown key", nil, []string{"--config", write("u.yaml", "datasets:\n  synthetic:\n    jobz: 3\n")}, "datasets.synthetic.jobz"},
		{"wrong type", nil, []string{"--config", write("t.yaml", "workers: many\n")}, "workers"},
		{"out of range", nil, []string{"--config", write("r.yaml", "workers: 0\n")}, "workers: must be in [1, 256], got 0"},
		{"nested out of range", []string{"SCHEDLAB_DATASETS_SYNTHETIC_JOBS=-4"}, nil, "datasets.synthetic.jobs"},
		{"quantile", []string{"SCHEDLAB_SUMMARY_QUANTILES=0.5,1.5"}, nil, "summary.quantiles[1]"},
		{"unknown env", []string{"SCHEDLAB_SEEDS=3"}, nil, "SCHEDLAB_SEEDS"},
		{"unknown preset", nil, []string{"--preset", "huge"}, `unknown preset "huge"`},
		{"bad speed", []string{"SCHEDLAB_SIM_SPEED=fast"}, nil, `sim.speed: must be "model" or "standalone", got "fast"`},
		{"unknown environment", []string{"SCHEDLAB_SIM_ENVIRONMENT=philly-paper"}, nil, `sim.environment: no stage produces environment "philly-paper" (want "" for the simulator's defaults, "paper" for each paper's own, or one of [das-paper marl-paper])`},
		{"missing file", nil, []string{"--config", filepath.Join(dir, "none.yaml")}, "none.yaml"},
		// Issue 16: these panicked in the config hash (exit status 2 with a
		// stack trace) or were coerced.
		{"inf in file", nil, []string{"--config", write("inf.yaml", "profile:\n  synth:\n    pcie_gbps: .inf\n")}, "profile.synth.pcie_gbps: must be a finite number, got .inf (config file "},
		{"inf in env", []string{"SCHEDLAB_DATASETS_INTERVAL_S=inf"}, nil, `datasets.interval_s: must be a finite number, got "inf" (environment variable SCHEDLAB_DATASETS_INTERVAL_S)`},
		{"negative seed in file", nil, []string{"--config", write("seed.yaml", "seed: -1\n")}, "seed: must be an integer ≥ 0, got -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, code := schedlab(t, tc.env, append([]string{"config", "show"}, tc.args...)...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.Contains(errs, tc.want) {
				t.Errorf("stderr %q does not mention %q", errs, tc.want)
			}
		})
	}
}

func TestUsageExitCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"run", "--no-such-flag"}, 2, "unknown flag"},
		{[]string{"run", "extra"}, 2, "unknown command"},
		{[]string{"export", "--run", "x"}, 2, "--run and --format are required"},
		{[]string{"train", "--family", "nope", "--out", "x"}, 2, "is not one of"},
		{[]string{"--log-level", "loud", "version"}, 2, "--log-level"},
		// Issue 16: a trillion samples ran out of memory, an infinite link
		// bandwidth was accepted.
		{[]string{"profile", "synth", "--samples", "100000000000", "--out", "x.parquet"}, 2, "profile.synth.samples: must be in [1, 1000000]"},
		{[]string{"profile", "synth", "--pcie-gbps", "inf", "--out", "x.parquet"}, 2, "profile.synth.pcie_gbps"},
		{[]string{"version"}, 0, ""},
	} {
		_, errs, code := schedlab(t, nil, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("schedlab %v: exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

// artifacts hashes every file a run must reproduce byte for byte: every
// file of the run directory, the report and the runner's records under
// .schedlab/ included, except the manifest and the files with "timings" in
// their names, which hold wall-clock measurements by design (DESIGN.md §2).
func artifacts(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() || rel == "manifest.json" || pipeline.WallClock(rel) {
			return nil
		}
		sum, _, err := pipeline.HashFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[rel] = sum
		return nil
	})
	for _, name := range []string{stages.ReportMarkdown, stages.ReportHTML, ".schedlab/stages/fit.json"} {
		if out[name] == "" {
			t.Fatalf("run in %s wrote no %s", dir, name)
		}
	}
	return out
}

func readManifest(t *testing.T, dir string) pipeline.Manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m pipeline.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func stageStatus(m pipeline.Manifest) map[string]bool {
	ran := map[string]bool{}
	for _, s := range m.Stages {
		ran[s.Name] = !s.Cached
	}
	return ran
}

// sameArtifacts compares the artifacts of run got with those of run want
// (artifacts: wall-clock files and the manifest left out), each in both,
// saying "LABEL: FILE differs" for each that does not match, and returns
// how many it compared.
func sameArtifacts(t *testing.T, want, got, label string) int {
	t.Helper()
	w, g := artifacts(t, want), artifacts(t, got)
	for k, v := range w {
		if g[k] != v {
			t.Errorf("%s: %s differs (sha256 %s vs %s)", label, k, g[k], v)
		}
	}
	if len(g) != len(w) {
		t.Errorf("%s: %d artifacts, the run it is compared with %d", label, len(g), len(w))
	}
	return len(w)
}

// TestQuickRunDeterministic runs the quick preset twice, with two workers
// (the shared run, quickRun) and with GOMAXPROCS=1 and one worker, and
// compares bytes: the same outputs from another run, another worker count
// and another GOMAXPROCS. (A third run like the first found nothing the
// second does not, and make test-seeds runs the preset at 100 seeds.)
// Under the race detector only the shared run is made, and its report
// checked: the second run, one worker on one P, runs nothing
// concurrently that the shared run under the detector (two workers) does
// not, so the detector adds nothing there; make test-norace runs and
// compares it whole.
func TestQuickRunDeterministic(t *testing.T) {
	dirs := []string{quickRun(t), filepath.Join(t.TempDir(), "c")}
	if !raceEnabled {
		args := []string{"run", "--preset", "quick", "--out", dirs[1], "--log-level", "warn"}
		_, errs, code := schedlab(t, []string{"GOMAXPROCS=1", "SCHEDLAB_WORKERS=1"}, args...)
		if code != 0 {
			t.Fatalf("run with one worker: exit %d: %s", code, errs)
		}
		if n := sameArtifacts(t, dirs[0], dirs[1], "the run with one worker and GOMAXPROCS=1"); n < 20 {
			t.Errorf("compared %d files", n)
		}
	}
	md, err := os.ReadFile(filepath.Join(dirs[0], "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## What was run, on which data", "(DAS Table 1)\n", "not comparable: trace synthetic-pai", "(MARL Table III)\n", "## Provenance", "![", "`eval/results.parquet`"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	// The claims scoreboard is the report's first section (issue 17,
	// item 6); quick tests MARL Fig. 7 at k = 4 and runs no DAS row.
	if first := strings.Index(string(md), "\n## "); first < 0 || !strings.HasPrefix(string(md)[first:], "\n## Claims scoreboard\n") {
		t.Errorf("report.md's first section is not the claims scoreboard")
	}
	for _, want := range []string{"| `marl-fig7` | MARL Fig. 7 |", "fat-tree k = 4 (paper: k = 20", "### Claims not run in this preset", "`das-jct-small`, `das-jct-medium`", "| `cal-marl-fig1a` |", "![Claims that ran"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md's scoreboard lacks %q", want)
		}
	}
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(line, "|") && strings.Count(line, "|")-1 > evaluation.MaxColumns {
			t.Errorf("report.md has a table row of %d columns (at most %d): %s", strings.Count(line, "|")-1, evaluation.MaxColumns, line)
		}
	}
	timings, err := os.ReadFile(filepath.Join(dirs[0], stages.ReportTimings))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| stage | status | wall (s) | CPU (s) |", "eval/timings.parquet"} {
		if !strings.Contains(string(timings), want) {
			t.Errorf("%s lacks %q", stages.ReportTimings, want)
		}
	}
	page, err := os.ReadFile(filepath.Join(dirs[0], "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if i, j := strings.Index(string(page), "Claims scoreboard"), strings.Index(string(page), "What was run, on which data"); i < 0 || i > j {
		t.Errorf("report.html does not open with the claims scoreboard")
	}
	if !strings.Contains(string(page), `src="data:image/png;base64,`) || strings.Contains(string(page), `src="plots/`) || !strings.Contains(string(page), "<table>") {
		t.Errorf("report.html is not self-contained with tables and embedded plots")
	}
	m := readManifest(t, dirs[0])
	if m.Status != "ok" || m.ConfigHash == "" || m.Versions.Go == "" {
		t.Errorf("manifest: status %q hash %q versions %+v", m.Status, m.ConfigHash, m.Versions)
	}
	for _, s := range m.Stages {
		for _, o := range s.Outputs {
			if o.SHA256 == "" || o.Bytes == 0 {
				t.Errorf("manifest output %+v of %s lacks hash or size", o, s.Name)
			}
			if strings.HasSuffix(o.Name, ".parquet") && o.Rows == 0 {
				t.Errorf("manifest output %s has no row count", o.Name)
			}
		}
	}
}

// TestQuickRunCache: a second run skips every stage; changing one config key
// re-runs only the stages that depend on it. The first run is the shared
// one (quickRun), copied: its manifest is that of a first run, and the
// re-runs write into the copy.
func TestQuickRunCache(t *testing.T) {
	if raceEnabled {
		t.Skip("reruns quick five ways: make test-norace runs it whole (the shared quick run covers the pipeline under the race detector)")
	}
	dir := quickCopy(t)
	run := func(env ...string) map[string]bool {
		t.Helper()
		_, errs, code := schedlab(t, env, "run", "--out", dir, "--log-level", "warn")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		return stageStatus(readManifest(t, dir))
	}
	first := stageStatus(readManifest(t, dir))
	if len(first) == 0 {
		t.Fatal("first run: no stages in the manifest")
	}
	for name, ran := range first {
		if !ran {
			t.Errorf("first run: stage %s cached", name)
		}
	}
	for name, ran := range run() {
		if ran {
			t.Errorf("second run: stage %s ran, want cached", name)
		}
	}
	for name, ran := range run("SCHEDLAB_SUMMARY_QUANTILES=0.5,0.95") {
		if want := name == "jobs-summary"; ran != want {
			t.Errorf("after changing summary.quantiles: stage %s ran=%v, want %v", name, ran, want)
		}
	}
	// The trace feeds its summary, das-table1 and das-load (and so the
	// collected tables); nothing else (quick does not fit das-paper, which
	// would read das-table1's jobs).
	for name, ran := range run("SCHEDLAB_DATASETS_SYNTHETIC_JOBS=500") {
		want := name == "synthetic-jobs" || name == "jobs-summary" || name == "eval-das-table1" || name == "eval-das-load" || name == "eval-collect"
		if ran != want {
			t.Errorf("after changing datasets.synthetic.jobs: stage %s ran=%v, want %v", name, ran, want)
		}
	}
	// One experiment's configuration re-runs that experiment only (and
	// what is derived from it and collects it).
	last := []string{"SCHEDLAB_DATASETS_SYNTHETIC_JOBS=500", "SCHEDLAB_EVAL_MARL_ARRIVALS_INTERVALS=5"}
	for name, ran := range run(last...) {
		if want := name == "eval-marl-arrivals" || name == "eval-marl-arrivals-convergence" || name == "eval-collect"; ran != want {
			t.Errorf("after changing eval.marl_arrivals.intervals: stage %s ran=%v, want %v", name, ran, want)
		}
	}
	// Files reused from the cache carry the same bytes as a fresh run of
	// the same configuration: their metadata names the stage's slice of
	// the configuration, not the whole run's.
	fresh := t.TempDir()
	if _, errs, code := schedlab(t, last, "run", "--out", fresh, "--log-level", "warn"); code != 0 {
		t.Fatalf("fresh run: exit %d: %s", code, errs)
	}
	if n := sameArtifacts(t, dir, fresh, "the fresh run, against the cached one"); n < 20 {
		t.Errorf("compared %d files", n)
	}
}

// TestRunResumesAfterSIGKILL kills a run (SIGKILL, no clean-up possible)
// right after its first stage finishes, while others may be mid-write, then
// runs again: the finished stage is not recomputed, and the outputs equal
// those of an uninterrupted run.
//
// The uninterrupted run is the shared one (quickRun).
func TestRunResumesAfterSIGKILL(t *testing.T) {
	if raceEnabled {
		t.Skip("two quick runs of its own: make test-norace runs it whole (the shared quick run covers the pipeline under the race detector)")
	}
	killed := filepath.Join(t.TempDir(), "killed")
	args := []string{"run", "--out", killed, "--log-level", "warn"}
	_, errs, code := schedlab(t, []string{killVar + "=synthetic-jobs"}, args...)
	if code != -1 && code != 137 {
		t.Fatalf("killed run: exit %d: %s", code, errs)
	}
	_, errs, code = schedlab(t, nil, args...)
	if code != 0 {
		t.Fatalf("resumed run: exit %d: %s", code, errs)
	}
	if ran := stageStatus(readManifest(t, killed)); ran["synthetic-jobs"] {
		t.Error("resumed run recomputed synthetic-jobs, which had finished before the kill")
	}
	if n := sameArtifacts(t, quickRun(t), killed, "the resumed run, against an uninterrupted one"); n < 20 {
		t.Errorf("compared %d files", n)
	}
}

// TestRunInterrupted: Ctrl-C during a run is reported as an interruption
// with exit status 130, not as a stage failing with "context canceled"
// (issue 16).
func TestRunInterrupted(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	_, errs, code := schedlab(t, []string{interruptVar + "=synthetic-jobs"}, "run", "--out", out, "--log-level", "warn")
	if code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	last := strings.TrimSpace(errs)
	if i := strings.LastIndex(last, "\n"); i >= 0 {
		last = last[i+1:]
	}
	if !strings.HasPrefix(last, "schedlab: run interrupted (interrupt)") || strings.Contains(last, "context canceled") {
		t.Errorf("last line %q: want \"schedlab: run interrupted (interrupt) ...\"", last)
	}
}

// TestDuckDBReadsRun has DuckDB, an independent Parquet reader, read every
// Parquet file of a quick run (row counts must match the manifest) and
// recompute the jobs summary table's figures by SQL.
func TestDuckDBReadsRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("installs DuckDB's Node client with npm")
	}
	dir := quickRun(t)
	m := readManifest(t, dir)
	// Every file's count in one query (one UNION ALL): each query starts
	// Node.js and DuckDB afresh, and a run has some thirty Parquet files.
	var files []pipeline.Artifact
	var counts []string
	for _, s := range m.Stages {
		for _, o := range s.Outputs {
			if !strings.HasSuffix(o.Name, ".parquet") {
				continue
			}
			counts = append(counts, fmt.Sprintf("SELECT %d AS i, count(*) FROM %s", len(files), duckdbtest.Literal(filepath.Join(dir, o.Name))))
			files = append(files, o)
		}
	}
	if len(files) < 3 {
		t.Fatalf("only %d Parquet files in the run", len(files))
	}
	r := duckdbtest.Query(t, strings.Join(counts, " UNION ALL ")+" ORDER BY i")
	if len(r.Rows) != len(files) {
		t.Fatalf("DuckDB counted %d files, the manifest lists %d", len(r.Rows), len(files))
	}
	for i, o := range files {
		if k, n := duckdbtest.Float(t, r.Rows[i][0]), duckdbtest.Float(t, r.Rows[i][1]); int(k) != i || int64(n) != o.Rows {
			t.Errorf("%s: DuckDB counts %v rows (row %v), manifest %d", o.Name, n, k, o.Rows)
		}
	}
	r = duckdbtest.Query(t, `SELECT count(*), avg(duration_s), quantile_cont(duration_s, 0.5),
		quantile_cont(duration_s, 0.9), quantile_cont(duration_s, 0.99),
		(SELECT sum(t.instances * t.gpu * j.duration_s) / 3600 FROM (SELECT unnest(tasks) AS t, duration_s FROM `+
		duckdbtest.Literal(filepath.Join(dir, "datasets/jobs.parquet"))+`) AS j)
		FROM `+duckdbtest.Literal(filepath.Join(dir, "datasets/jobs.parquet")))
	summary, err := os.ReadFile(filepath.Join(dir, "tables/jobs_summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := r.Rows[0]
	f := func(i int) float64 { return duckdbtest.Float(t, row[i]) }
	for _, want := range []string{
		fmt.Sprintf("| jobs | %.0f |", f(0)),
		fmt.Sprintf("| mean duration (s) | %.1f |", f(1)),
		fmt.Sprintf("| p50 duration (s) | %.1f |", f(2)),
		fmt.Sprintf("| p90 duration (s) | %.1f |", f(3)),
		fmt.Sprintf("| p99 duration (s) | %.1f |", f(4)),
		fmt.Sprintf("| GPU-hours requested | %.1f |", f(5)),
	} {
		if !strings.Contains(string(summary), want) {
			t.Errorf("DuckDB computes %q; the summary table says:\n%s", want, summary)
		}
	}

	// das-table1 from the per-job results by SQL: mean JCT in minutes and
	// mean fee per scheduler and cluster, as the table prints them.
	r = duckdbtest.Query(t, `SELECT scheduler, cluster, avg(jct_s) / 60, avg(fee_usd) FROM `+
		duckdbtest.Literal(filepath.Join(dir, "eval/results.parquet"))+
		` WHERE experiment = 'das-table1' AND scheduler = 'fifo-firstfit' GROUP BY ALL ORDER BY cluster`)
	table, err := os.ReadFile(filepath.Join(dir, "tables/das-table1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var ours string
	for _, line := range strings.Split(string(table), "\n") {
		if strings.HasPrefix(line, "FIFO-FirstFit,ours,") {
			ours = line
		}
	}
	if len(r.Rows) != 3 || ours == "" {
		t.Fatalf("DuckDB rows %v; table row %q", r.Rows, ours)
	}
	for _, row := range r.Rows {
		cell := fmt.Sprintf("%.3f,%.3f", duckdbtest.Float(t, row[2]), duckdbtest.Float(t, row[3]))
		if !strings.Contains(ours, cell) {
			t.Errorf("DuckDB computes %s for FIFO-FirstFit on %v; das-table1.csv says %s", cell, row[1], ours)
		}
	}
}
