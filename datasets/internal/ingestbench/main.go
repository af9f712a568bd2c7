// Command ingestbench runs one registered datasets reader from the command
// line, for timing and profiling an ingest outside the test harness:
//
//	go run ./datasets/internal/ingestbench -source google-2011 -out DIR INPUT...
//
// It prints the report as JSON. -cpuprofile and -memprofile write pprof
// profiles.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/schedlab/schedlab/datasets"
)

func main() {
	source := flag.String("source", datasets.SourceGoogle2011, "registered source name")
	out := flag.String("out", "", "output directory")
	workers := flag.Int("workers", 0, "google-2011 decode workers (0: the reader's default)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	memprofile := flag.String("memprofile", "", "write a heap profile to this file at exit")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: ingestbench -source SRC -out DIR INPUT...")
		os.Exit(2)
	}
	if err := run(*source, *out, *workers, *cpuprofile, *memprofile, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "ingestbench:", err)
		os.Exit(1)
	}
}

func run(source, out string, workers int, cpuprofile, memprofile string, inputs []string) error {
	r, err := datasets.Lookup(source)
	if err != nil {
		return err
	}
	if g, ok := r.(datasets.Google2011Reader); ok && workers > 0 {
		g.Workers = workers
		r = g
	}
	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	rep, err := r.Ingest(context.Background(), datasets.Request{Inputs: inputs, OutDir: out})
	if err != nil {
		return err
	}
	if memprofile != "" {
		f, err := os.Create(memprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		runtime.GC()
		if err := pprof.WriteHeapProfile(f); err != nil {
			return err
		}
	}
	rep.PerFile = nil
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
