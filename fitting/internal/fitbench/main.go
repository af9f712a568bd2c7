// Command fitbench is the Go side of the side-by-side check of the
// interference fits against SciPy's curve_fit
// (fitting/testdata/scipy_fit.py). Both read the same CSV of observations
// and the same starting points and fit the five Table III models with
// analytic Jacobians: schedlab as its fit stage does (FitModelFrom: the
// three linear models by one QR pass, the two exponential ones by variable
// projection from the start's exponents), SciPy by curve_fit's
// Levenberg–Marquardt (MINPACK) from the whole start (zeros for the
// linear models).
//
//	fitbench gen  -n 480 -seed 1 -out DIR   # DIR/obs.csv, DIR/starts.json
//	fitbench fit  DIR                        # prints JSON: params and fit seconds per model
//
// The fit time is measured around the fit call only (CSV parsing and
// process start excluded), as the median of FITBENCH_REPS (default 5)
// repetitions, as in the Python script: wall-clock seconds, and the
// process's CPU seconds (the figure to compare on a loaded machine, where
// wall time also counts waiting for a core).
package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/profiling"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: fitbench gen|fit ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "fit":
		err = fit(os.Args[2:])
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fitbench:", err)
		os.Exit(1)
	}
}

// synthStream is the stream fitting.DefaultModel's samples were drawn
// from (its provenance names it).
const (
	synthStream pipeline.Stream = "profile"
	synthKey    pipeline.Key    = "synthetic"
)

func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	n := fs.Int("n", 480, "samples")
	seed := fs.Uint64("seed", 1, "seed")
	out := fs.String("out", "", "output directory")
	fs.Parse(args)
	cfg := profiling.DefaultSynthConfig()
	cfg.Samples = *n
	s, err := profiling.Synthesize(context.Background(), cfg, pipeline.RandSource(*seed, synthStream, synthKey))
	if err != nil {
		return err
	}
	obs, bad := fitting.Observations(s)
	if len(bad) > 0 {
		return fmt.Errorf("%d samples quarantined", len(bad))
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(*out, "obs.csv"))
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"uc", "cj", "up", "pj", "s"})
	for _, o := range obs {
		w.Write([]string{ff(o.UC), ff(o.CJ), ff(o.UP), ff(o.PJ), ff(o.S)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	// Starting points: the grid start FitModel uses for the exponential
	// models, zeros for the linear ones (both solvers must find the
	// minimum from there).
	starts := map[string][]float64{}
	for _, m := range fitting.Models() {
		if m.Linear {
			starts[m.Name] = make([]float64, len(m.Params))
			continue
		}
		st, err := fitting.GridStart(m, obs)
		if err != nil {
			return err
		}
		starts[m.Name] = st
	}
	b, _ := json.MarshalIndent(starts, "", "  ")
	return os.WriteFile(filepath.Join(*out, "starts.json"), b, 0o644)
}

func ff(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

type result struct {
	Params     []float64 `json:"params"`
	Method     string    `json:"method"`
	Seconds    float64   `json:"seconds"`
	CPUSeconds float64   `json:"cpu_seconds"`
	Status     string    `json:"status"`
	Iterations int       `json:"iterations"`
	SSR        float64   `json:"ssr"`
}

func fit(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: fitbench fit DIR")
	}
	dir := args[0]
	reps := 5
	if v := os.Getenv("FITBENCH_REPS"); v != "" {
		var err error
		if reps, err = strconv.Atoi(v); err != nil || reps < 1 {
			return fmt.Errorf("FITBENCH_REPS: %q", v)
		}
	}
	obs, err := readCSV(filepath.Join(dir, "obs.csv"))
	if err != nil {
		return err
	}
	var starts map[string][]float64
	b, err := os.ReadFile(filepath.Join(dir, "starts.json"))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &starts); err != nil {
		return err
	}
	out := map[string]result{}
	total, totalCPU := 0.0, 0.0
	for _, m := range fitting.Models() {
		// Each fit is repeated reps times and the median time kept, as in
		// the Python script, so that neither side is timed cold.
		var r result
		wall, cpu := make([]float64, reps), make([]float64, reps)
		for k := range wall {
			c0, t0 := cpuSeconds(), time.Now()
			f, err := fitting.FitModelFrom(context.Background(), m, obs, starts[m.Name])
			if err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			wall[k], cpu[k] = time.Since(t0).Seconds(), cpuSeconds()-c0
			r = result{Params: f.Params, Method: f.Method, Status: f.Status.String(), Iterations: f.Iterations, SSR: f.SSR}
		}
		r.Seconds, r.CPUSeconds = median(wall), median(cpu)
		totalCPU += r.CPUSeconds
		total += r.Seconds
		out[m.Name] = r
	}
	out["total"] = result{Seconds: total, CPUSeconds: totalCPU}
	b, _ = json.MarshalIndent(out, "", "  ")
	fmt.Println(string(b))
	return nil
}

func median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}

// cpuSeconds is the process's CPU time (user + system, all threads, the
// garbage collector's included): on a loaded machine it counts what the
// fit costs, not the time spent waiting for a core.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func readCSV(path string) ([]fitting.Observation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	obs := make([]fitting.Observation, 0, len(recs))
	for i, r := range recs[1:] {
		var v [5]float64
		for j := range v {
			if v[j], err = strconv.ParseFloat(r[j], 64); err != nil {
				return nil, fmt.Errorf("%s:%d: column %d: %w", path, i+2, j+1, err)
			}
		}
		obs = append(obs, fitting.Observation{UC: v[0], CJ: v[1], UP: v[2], PJ: v[3], S: v[4]})
	}
	return obs, nil
}
