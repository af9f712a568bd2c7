// Command schedlab runs the schedlab pipeline: ingest GPU-cluster traces,
// fit the interference model, train learned schedulers in the simulator and
// write reproducible evaluation tables. `schedlab --help` lists the commands.
//
// Exit status: 0 on success, 1 on failure, 2 on bad usage or configuration,
// 130 when interrupted (SIGINT, Ctrl-C) and 143 when terminated (SIGTERM).
package main

import (
	"fmt"
	"os"
)

func main() {
	os.Exit(execute(os.Args[1:]))
}

func execute(args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	fmt.Fprintf(os.Stderr, "schedlab: %v\n", err)
	return exitCode(err)
}
