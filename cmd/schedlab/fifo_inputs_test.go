package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedlab/schedlab/fitting"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// fifoExtraArgs are the arguments a command ("path" or "path --flag")
// needs besides the input flag under test for it to reach that input;
// TRACE, CLUSTER, MODEL and PRED are replaced by fixtures' paths.
var fifoExtraArgs = map[string][]string{
	"eval":                     {"--experiment", "marl-arrivals", "--schedulers", "tetris-pack", "--intervals", "1"},
	"eval --jobs":              {"--experiment", "das-table1", "--schedulers", "fifo-firstfit"},
	"fit --model":              {"--predict", "PRED"},
	"fit --predict":            {"--model", "MODEL"},
	"ingest":                   {"--source", "pai-sim"},
	"replay --trace":           {"--format", "tiresias", "--cluster", "CLUSTER", "--policy", "fifo"},
	"replay --cluster":         {"--trace", "TRACE", "--format", "tiresias", "--policy", "fifo"},
	"replay --gittins-samples": {"--trace", "TRACE", "--format", "tiresias", "--cluster", "CLUSTER", "--policy", "dlas-gpu-gittins"},
	"train":                    {"--family", "das"},
	"train --interference":     {"--family", "marl"},
	"train --environment":      {"--family", "marl", "--set", "sim.environment=marl-paper"},
}

// TestFIFOInputsRefusedAtOnce gives a FIFO, which nothing writes to, as
// every input flag (inputFlags) of every command that has it, --config
// included: each command is refused, naming the FIFO, within seconds.
// An open(2) of a FIFO blocks until a writer comes; a FIFO as --config
// hung and ignored SIGTERM (issue 50, #9).
func TestFIFOInputsRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	fixtures := map[string]string{"TRACE": replayTrace, "CLUSTER": replaySpec, "PRED": "cpu_cores,pcie_gbps\n1,1\n"}
	m, err := json.Marshal(fitting.DefaultModel())
	if err != nil {
		t.Fatal(err)
	}
	fixtures["MODEL"] = string(m)
	for name, body := range fixtures {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		fixtures[name] = p
	}
	type use struct {
		path []string
		flag string
	}
	var uses []use
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			walk(sub, append(slices.Clone(path), sub.Name()))
		}
		if c.RunE == nil && c.Run == nil {
			return
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if inputFlags[f.Name] && f.Name != "config" {
				uses = append(uses, use{path, f.Name})
			}
		})
	}
	root := newRootCmd()
	walk(root, nil)
	uses = append(uses, use{[]string{"config", "show"}, "config"}, use{[]string{"run"}, "config"}, use{[]string{"plan"}, "config"})
	seen := map[string]bool{}
	for _, u := range uses {
		seen[u.flag] = true
	}
	for f := range inputFlags {
		if !seen[f] {
			t.Errorf("no command has input flag --%s", f)
		}
	}
	for _, u := range uses {
		name := strings.Join(u.path, " ") + " --" + u.flag
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			args := append(slices.Clone(u.path), "--"+u.flag, fifo)
			extra, ok := fifoExtraArgs[name]
			if !ok {
				extra = fifoExtraArgs[strings.Join(u.path, " ")]
			}
			for _, a := range extra {
				if p, ok := fixtures[a]; ok {
					a = p
				}
				args = append(args, a)
			}
			if cmdHasFlag(root, u.path, "out") && !slices.Contains(args, "--out") {
				args = append(args, "--out", filepath.Join(out, "o"))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], args...)
			cmd.Env = append(cleanEnv(), execVar+"=1", raceOptions())
			var errb bytes.Buffer
			cmd.Stderr = &errb
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("schedlab %s: still running after 30 s (blocked on the FIFO?)", strings.Join(args, " "))
			}
			if err == nil {
				t.Fatalf("schedlab %s: exit 0", strings.Join(args, " "))
			}
			if msg := errb.String(); !strings.Contains(msg, fifo) {
				t.Errorf("schedlab %s: the error does not name the FIFO:\n%s", strings.Join(args, " "), msg)
			}
		})
	}
}

func cmdHasFlag(root *cobra.Command, path []string, flag string) bool {
	c, _, err := root.Find(path)
	return err == nil && c.Flags().Lookup(flag) != nil
}
