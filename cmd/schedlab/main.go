// Command schedlab runs the schedlab pipeline: ingest GPU-cluster traces,
// fit the interference model, train learned schedulers in the simulator and
// write reproducible evaluation tables. `schedlab --help` lists the commands.
//
// Exit status: 0 on success, 1 on failure, 2 on bad usage or configuration,
// 130 when interrupted (SIGINT, Ctrl-C) and 143 when terminated (SIGTERM).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(execute(os.Args[1:]))
}

// signalsCaught, when set (in tests), is called with the command's
// context once SIGINT and SIGTERM are caught, before the command runs.
var signalsCaught func(ctx context.Context)

// execute runs the command line args and returns the exit status. SIGINT
// and SIGTERM are caught for every command: they cancel its context, the
// command cleans up (staging directories, locks) and returns, and the
// exit status is 128 + the signal's number whatever the command returned,
// so that a script can tell an interruption from a failure. A second
// signal kills at once, as an uncaught one does.
func execute(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)
	if signalsCaught != nil {
		signalsCaught(ctx)
	}
	root := newRootCmd()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if sig, ok := interruption(ctx); ok {
		if !errors.As(err, new(interruptedError)) {
			msg := fmt.Sprintf("interrupted (%v)", sig)
			if err != nil {
				msg += ": " + err.Error()
			}
			err = interruptedError{msg, sig}
		}
		fmt.Fprintf(os.Stderr, "schedlab: %v\n", err)
		return 128 + int(sig)
	}
	if err == nil {
		return 0
	}
	fmt.Fprintf(os.Stderr, "schedlab: %v\n", err)
	return exitCode(err)
}
