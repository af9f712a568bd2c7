package main

import (
	"os"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// inputFlags are the flags, of any command, that name a file the command
// reads.
var inputFlags = map[string]bool{
	"config": true, "input": true, "samples": true, "model": true, "predict": true,
	"jobs": true, "arrivals": true, "environment": true, "interference": true,
	"trace": true, "cluster": true, "gittins-samples": true,
}

// inputTreeFlags are the input flags that name a directory the command
// reads every file of (eval's --models).
var inputTreeFlags = map[string]bool{"models": true}

// inputTreesAnnotation marks a command whose positional arguments are
// directories it only reads (diff's runs, history add's run): every file
// beneath them is an input. Other commands' positional arguments are
// inputs when they are files.
const inputTreesAnnotation = "schedlab.input-trees"

// protectInputs makes every command of the tree under root hold its
// inputs (the files its input flags and positional arguments name) as
// pipeline.ProtectInputs while it runs, so that no output of the command
// replaces one of them, whatever name the output is given.
func protectInputs(root *cobra.Command) {
	for _, c := range root.Commands() {
		protectInputs(c)
	}
	run := root.RunE
	if run == nil {
		return
	}
	root.RunE = func(cmd *cobra.Command, args []string) error {
		defer pipeline.ProtectInputs(commandInputs(cmd, args)...)()
		return run(cmd, args)
	}
}

// commandInputs lists the inputs of cmd run with args: directories only
// where cmd is marked with inputTreesAnnotation.
func commandInputs(cmd *cobra.Command, args []string) []string {
	trees := cmd.Annotations[inputTreesAnnotation] != ""
	var paths []string
	add := func(p string, tree bool) {
		if st, err := os.Stat(p); err == nil && (tree || !st.IsDir()) {
			paths = append(paths, p)
		}
	}
	visit := func(f *pflag.Flag) {
		if inputTreeFlags[f.Name] {
			add(f.Value.String(), true)
			return
		}
		if !inputFlags[f.Name] {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, p := range sv.GetSlice() {
				add(p, false)
			}
			return
		}
		add(f.Value.String(), false)
	}
	cmd.Flags().Visit(visit)
	for _, a := range args {
		add(a, trees)
	}
	return paths
}
