package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/external"
	"github.com/schedlab/schedlab/sim"
	"github.com/spf13/cobra"
)

func init() { register(newReplayCmd) }

// formatCanonical is --format's name for a jobs table schedlab wrote
// (jobs.parquet, or an ingested dataset's directory).
const formatCanonical = "canonical"

// replayOptions are replay's flags, as given.
type replayOptions struct {
	trace, format, cluster, policy, out string
	trigger, speed, dataDir, restartS   string
	intervalS, promote, roundS          float64
	thresholds                          []float64
	gittinsSamples                      string
	skipBad                             bool
	// An external policy (docs/policy-protocol.md): the command that
	// starts it, its working directory, the bound on each decision and
	// the seed its handshake carries.
	policyCmd, policyDir string
	policyTimeout        time.Duration
	seed                 uint64
}

func newReplayCmd(a *app) *cobra.Command {
	var o replayOptions
	cmd := &cobra.Command{
		Use:   "replay --trace FILE --format FORMAT --cluster FILE|NAME --policy NAME --out FILE.csv|FILE.parquet",
		Short: "Replay one trace on one cluster under one policy and write each job's times",
		Long: `replay runs one trace through the simulator on one cluster under one scheduling
policy and writes one row per job: job_id, submit_time, start_time, end_time,
preempt (times it was preempted), resume (times it resumed after one), num_gpu,
duration, jct (seconds) and status ("finished", or "never fits" for a job larger
than the empty cluster: reported, left out of the run, its times empty).

--format is a trace source of schedlab ingest (tiresias, pai-sim, elasticflow,
philly-gavel, alibaba-v2023, pai-v2020; schedlab list sources) or canonical (a
jobs.parquet, or a dataset directory, that schedlab wrote). A row the source's
reader rejects stops the replay with its file, line, field and reason (all of
them are counted; --skip-bad replays the rest and says how many were left out).

--cluster is a Tiresias cluster spec (a CSV with num_switch, num_node_p_switch,
num_gpu_p_node, num_cpu_p_node, mem_p_node) or a named cluster (schedlab list
clusters: the DAS paper's small, medium and large among them).

--policy is any scheduler of schedlab list schedulers, by name or alias: the
Tiresias simulator's fifo, sjf, shortest, shortest-gpu, dlas, dlas-gpu and
dlas-gpu-gittins are aliases of fifo-strict, smallest-first, srtf, srsf,
tiresias-las-1d, tiresias-las and tiresias-gittins, and replay them job for
job. srtf and srsf read true durations: oracles. gandiva (time-slicing),
gavel-las (max-min fairness) and gavel-ftf (finish-time fairness) work in
rounds, 60 and 360 s unless --round-s says otherwise. The trigger is
the policy's own (every arrival and completion for those) unless --trigger says
otherwise. --restart-s is what each resume costs: a number, or a table per
model (default=30,resnet-50=25). Jobs run at their recorded durations (--speed standalone); --speed
model applies the interference and network model.

--out ending in .parquet writes Parquet (readable by Arrow, DuckDB, pandas),
anything else CSV; either is written atomically. A summary goes to stderr.`,
		Example: `  schedlab replay --trace 60_job.csv --format tiresias --cluster n2g4.csv --policy dlas-gpu --out jobs.csv
  schedlab replay --trace operate_simulator_jobs_6000.csv --format pai-sim --cluster large --policy srtf --out pai.parquet
  schedlab replay --trace out/ef/jobs.parquet --format canonical --cluster medium --policy tiresias-las --restart-s 30 --out ef.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.trace == "" || o.format == "" || o.cluster == "" || (o.policy == "") == (o.policyCmd == "") || o.out == "" {
				return usageErrorf("replay: --trace, --format, --cluster, --out and one of --policy or --policy-cmd are required (see schedlab replay --help)")
			}
			return runReplay(cmd.Context(), a, o, cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.trace, "trace", "", "the trace file (or directory, for sources that take one)")
	f.StringVar(&o.format, "format", "", "the trace's format: a source of schedlab list sources, or canonical")
	f.StringVar(&o.cluster, "cluster", "", "a Tiresias cluster spec file or a cluster name of schedlab list clusters")
	f.StringVar(&o.policy, "policy", "", "a scheduler of schedlab list schedulers (name or alias)")
	f.StringVar(&o.policyCmd, "policy-cmd", "", "instead of --policy, a command that starts an external policy speaking docs/policy-protocol.md (\"python3 -u my_policy.py\")")
	f.StringVar(&o.policyDir, "policy-dir", "", "the external policy's working directory (default the current one)")
	f.DurationVar(&o.policyTimeout, "policy-timeout", 0, "the bound on each of the external policy's answers (default 10s)")
	f.Uint64Var(&o.seed, "seed", 1, "the seed sent to an external policy in its handshake")
	f.StringVar(&o.out, "out", "", "the per-job output: FILE.csv or FILE.parquet")
	f.StringVar(&o.trigger, "trigger", "", "when the policy decides: event, interval or every (default: the policy's own, else event)")
	f.Float64Var(&o.intervalS, "interval-s", 0, "the round with --trigger interval, seconds (default sim's 1800)")
	f.StringVar(&o.restartS, "restart-s", "0", "seconds of extra work each resume after a preemption costs (Tiresias 0, Pollux 30), or a table per model: default=30,resnet-50=25")
	f.StringVar(&o.speed, "speed", sim.SpeedStandalone, "standalone (recorded durations) or model (interference and network)")
	f.StringVar(&o.dataDir, "data-dir", "", "the shared data directory, where tiresias-gittins finds tiresias/yarn-gput1000.csv (default ../shared/data when it exists)")
	f.StringVar(&o.gittinsSamples, "gittins-samples", "", "the job GPU-time samples of tiresias-gittins (CSV with a duration column)")
	f.Float64SliceVar(&o.thresholds, "thresholds", nil, "the Tiresias queue limits in GPU-seconds (default 3250,7200)")
	f.Float64Var(&o.roundS, "round-s", 0, "the round (lease) of gandiva and the gavel policies, seconds (default each one's own: 60, 360)")
	f.Float64Var(&o.promote, "promote", 0, "the Tiresias promote knob (solve_starvation): 0 off")
	f.BoolVar(&o.skipBad, "skip-bad", false, "replay the rows the reader accepts, reporting how many it rejected, instead of stopping")
	return cmd
}

// runReplay reads the trace and the cluster, builds the policy, runs the
// simulation and writes the per-job rows.
func runReplay(ctx context.Context, a *app, o replayOptions, stderr io.Writer) error {
	c, err := replayCluster(o.cluster)
	if err != nil {
		return err
	}
	var (
		sched sim.Scheduler
		info  schedulers.Info
		// An external policy's process starts while the trace is read:
		// its interpreter's start-up and handshake overlap the ingest
		// instead of following it. started delivers it (or why not).
		started chan error
	)
	if o.policyCmd == "" {
		if sched, info, err = replayScheduler(ctx, o); err != nil {
			return err
		}
	} else {
		info = externalInfo
		started = make(chan error, 1)
		go func() {
			var err error
			sched, _, err = replayScheduler(ctx, o)
			started <- err
		}()
	}
	defer func() {
		// An external policy's process is ended and reaped however the
		// replay ends (once it has started, if it is still starting).
		if started != nil && <-started != nil {
			return
		}
		if cl, ok := sched.(io.Closer); ok {
			if cerr := cl.Close(); cerr != nil {
				fmt.Fprintf(stderr, "replay: %v\n", cerr)
			}
		}
	}()
	cfg := sim.DefaultConfig()
	cfg.Speed = o.speed
	if cfg.RestartS, err = sim.ParseRestartCost(o.restartS); err != nil {
		return usageErrorf("replay: --restart-s: %v", err)
	}
	cfg.Trigger = sim.TriggerEvent
	if info.Trigger != "" {
		cfg.Trigger = info.Trigger
	}
	if o.trigger != "" {
		cfg.Trigger = o.trigger
	}
	if o.intervalS != 0 {
		cfg.IntervalS = o.intervalS
	}
	cfg.SkipFloor = true // the output has no floor
	if err := cfg.Validate(); err != nil {
		return usageErrorf("replay: %v", err)
	}
	jobs, err := readReplayTrace(ctx, o, stderr)
	if started != nil {
		// The policy's own failure to start comes first: it is what the
		// replay could not do without, whatever the trace held.
		perr := <-started
		started = nil
		if perr != nil {
			return perr
		}
	}
	if err != nil {
		return err
	}
	wall := time.Now()
	res, err := sim.Run(ctx, c, jobs, sched, cfg, nil)
	if err != nil {
		return err
	}
	took := time.Since(wall).Seconds()
	rows := replayRows(jobs, res)
	if err := writeReplay(o.out, rows); err != nil {
		return err
	}
	for i, p := range res.Pruned {
		if i == 5 {
			fmt.Fprintf(stderr, "replay: ... %d more never fit\n", len(res.Pruned)-5)
			break
		}
		fmt.Fprintf(stderr, "replay: job %q can never fit %s: %s\n", p.JobID, c.Name, p.Reason)
	}
	var pre int
	for _, p := range res.Preempted {
		pre += p.Preemptions
	}
	fmt.Fprintf(stderr, "replay: %d jobs (%d never fit) under %s on %s: mean JCT %.1f s, %d preemptions, %d decisions; %.3f s wall (%.0f jobs/s)\n",
		len(jobs), len(res.Pruned), sched.Name(), c.Name, res.Metrics.MeanJCTS, pre, res.Decisions, took, float64(len(jobs))/max(took, 1e-9))
	a.log.Debug("replay written", "out", o.out, "rows", len(rows))
	return nil
}

// externalInfo is what replay knows of a --policy-cmd policy.
var externalInfo = schedulers.Info{Name: "external:cmd", Display: "external:cmd"}

// replayScheduler builds the policy: a registered scheduler, or an
// external policy (a process speaking the policy protocol) started from
// --policy-cmd.
func replayScheduler(ctx context.Context, o replayOptions) (sim.Scheduler, schedulers.Info, error) {
	if o.policyCmd != "" {
		p, err := external.New(ctx, external.Config{Name: "cmd", Command: o.policyCmd, Dir: o.policyDir, Timeout: o.policyTimeout, Seed: o.seed})
		if err != nil {
			return nil, schedulers.Info{}, err
		}
		return p, externalInfo, nil
	}
	name, err := schedulers.Canonical(o.policy)
	if err != nil {
		return nil, schedulers.Info{}, usageErrorf("replay: --policy: %v", err)
	}
	info, _ := schedulers.Lookup(string(name))
	if info.Learned() {
		return nil, info, usageErrorf("replay: --policy %s is learned: replay runs heuristics and the Tiresias policies (a learned policy needs its trained model: schedlab eval)", name)
	}
	if !(o.roundS >= 0) || math.IsInf(o.roundS, 0) {
		return nil, info, usageErrorf("replay: --round-s: must be >= 0 and finite, got %v", o.roundS)
	}
	opt := schedulers.Options{DataDir: o.dataDir, RoundS: o.roundS}
	if opt.DataDir == "" {
		if st, err := os.Stat(filepath.Join("..", "shared", "data")); err == nil && st.IsDir() {
			opt.DataDir = filepath.Join("..", "shared", "data")
		}
	}
	if o.gittinsSamples != "" || len(o.thresholds) > 0 || o.promote != 0 {
		opt.Tiresias = &schedulers.TiresiasConfig{ThresholdsGPUS: o.thresholds, Promote: o.promote, GittinsSamples: o.gittinsSamples}
		if err := opt.Tiresias.Validate(); err != nil {
			return nil, info, usageErrorf("replay: %v", err)
		}
	}
	s, err := schedulers.New(name, opt)
	if err != nil {
		return nil, info, err
	}
	return s, info, nil
}

// namedCluster is a cluster --cluster takes by name (sim's presets,
// schedlab list clusters); ok is false for a name that is none.
func namedCluster(name string) (*sim.Cluster, bool, error) {
	spec, err := sim.Preset(name)
	if err != nil {
		return nil, false, nil
	}
	c, err := spec.Build()
	return c, true, err
}

// replayCluster is --cluster: a named cluster, else a Tiresias spec file.
func replayCluster(arg string) (*sim.Cluster, error) {
	if c, ok, err := namedCluster(arg); ok {
		return c, err
	}
	if _, err := os.Stat(arg); err != nil {
		return nil, usageErrorf("replay: --cluster %q is neither a cluster name (%s) nor a readable file: %v", arg, strings.Join(sim.PresetNames(), ", "), err)
	}
	spec, err := datasets.ReadTiresiasCluster(arg)
	if err != nil {
		return nil, err
	}
	return sim.FromTiresias(spec)
}

// readReplayTrace reads the trace: a canonical jobs table as it is, any
// other format through its datasets reader into a scratch directory. Rows
// the reader rejects stop the replay (unless --skip-bad), naming the first
// few by file, line and field.
func readReplayTrace(ctx context.Context, o replayOptions, stderr io.Writer) ([]datasets.Job, error) {
	if o.format == formatCanonical {
		return datasets.ReadParquet[datasets.Job](o.trace)
	}
	r, err := datasets.Lookup(o.format)
	if err != nil {
		return nil, usageErrorf("replay: --format: %v (or %s)", err, formatCanonical)
	}
	tmp, err := os.MkdirTemp("", "schedlab-replay-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	rep, err := r.Ingest(ctx, datasets.Request{Inputs: []string{o.trace}, OutDir: tmp})
	if err != nil {
		return nil, err
	}
	jobsFile := filepath.Join(tmp, datasets.JobsFile)
	if _, err := os.Stat(jobsFile); err != nil {
		return nil, usageErrorf("replay: --format %s yields no jobs table (%v): replay needs jobs", o.format, err)
	}
	if n := rep.Total.Quarantined; n > 0 {
		bad, err := datasets.ReadParquet[datasets.Rejected](filepath.Join(tmp, datasets.QuarantineFile))
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		for i, q := range bad {
			if i == 5 {
				fmt.Fprintf(&b, "\n  ... %d more", len(bad)-5)
				break
			}
			fmt.Fprintf(&b, "\n  %s:%d: %s: %s", q.File, q.Line, q.Field, q.Reason)
		}
		if !o.skipBad {
			return nil, fmt.Errorf("replay: %d of %d rows of %s rejected (--skip-bad replays the rest):%s", n, rep.Total.Read, o.trace, b.String())
		}
		fmt.Fprintf(stderr, "replay: %d of %d rows rejected and left out:%s\n", n, rep.Total.Read, b.String())
	}
	return datasets.ReadParquet[datasets.Job](jobsFile)
}

// replayRow is one job of replay's output. Times are seconds; a job that
// never fits has no start, end or JCT.
type replayRow struct {
	JobID   string   `parquet:"job_id"`
	SubmitS float64  `parquet:"submit_time"`
	StartS  *float64 `parquet:"start_time,optional"`
	EndS    *float64 `parquet:"end_time,optional"`
	Preempt int64    `parquet:"preempt"`
	Resume  int64    `parquet:"resume"`
	GPUs    float64  `parquet:"num_gpu"`
	DurS    float64  `parquet:"duration"`
	JCTS    *float64 `parquet:"jct,optional"`
	Status  string   `parquet:"status"`
}

var replayHeader = []string{"job_id", "submit_time", "start_time", "end_time", "preempt", "resume", "num_gpu", "duration", "jct", "status"}

// replayRows is one row per input job, in input order.
func replayRows(jobs []datasets.Job, res *sim.Result) []replayRow {
	rows := make([]replayRow, len(jobs))
	for i, j := range jobs {
		rows[i] = replayRow{JobID: j.JobID, SubmitS: j.SubmitS, GPUs: j.TotalGPU(), DurS: j.DurationS, Status: "never fits"}
	}
	for _, r := range res.Jobs {
		row := &rows[r.Index]
		start, end, jct := r.StartS, r.FinishS, r.JCTS
		row.StartS, row.EndS, row.JCTS, row.Status = &start, &end, &jct, "finished"
	}
	for _, p := range res.Preempted {
		rows[p.Index].Preempt, rows[p.Index].Resume = int64(p.Preemptions), int64(p.Resumptions)
	}
	return rows
}

// writeReplay writes rows as Parquet (out ending in .parquet) or CSV,
// atomically.
func writeReplay(out string, rows []replayRow) error {
	if strings.EqualFold(filepath.Ext(out), ".parquet") {
		return datasets.WriteParquet(out, datasets.FileMeta{Source: "replay"}, rows)
	}
	var b bytes.Buffer
	b.WriteString(strings.Join(replayHeader, ",") + "\n")
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	opt := func(x *float64) string {
		if x == nil || math.IsNaN(*x) {
			return ""
		}
		return num(*x)
	}
	for _, r := range rows {
		fields := []string{csvQuote(r.JobID), num(r.SubmitS), opt(r.StartS), opt(r.EndS),
			strconv.FormatInt(r.Preempt, 10), strconv.FormatInt(r.Resume, 10), num(r.GPUs), num(r.DurS), opt(r.JCTS), r.Status}
		b.WriteString(strings.Join(fields, ",") + "\n")
	}
	if err := pipeline.WriteFileAtomic(out, b.Bytes()); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	return nil
}

// csvQuote quotes s when CSV needs it.
func csvQuote(s string) string {
	if !strings.ContainsAny(s, ",\"\n\r") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
