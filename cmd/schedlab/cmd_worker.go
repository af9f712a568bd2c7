package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/spf13/cobra"
)

// The Temporal executor (worker, --executor temporal://) is linked in only
// by the build tag temporal (temporal_on.go; make build TAGS=temporal): its
// SDK and gRPC are a third of a first build's compiling, and no other
// command needs them. Without the tag (temporal_off.go) both say how to get
// a build that has it.

var errNoTemporal = errors.New("this schedlab was built without the Temporal executor, which the default build leaves out (its SDK would lengthen a first build): make build TAGS=temporal, or go build -tags temporal ./cmd/schedlab, builds one with it")

func init() { register(newWorkerCmd) }

func newWorkerCmd(a *app) *cobra.Command {
	var (
		hostPort, namespace string
		slots               int
	)
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Serve a Temporal cluster: run the tasks of `schedlab run --executor temporal://...`",
		Long: `worker connects to a Temporal frontend and runs the tasks (evaluation cells, model
trainings, ingest shards) that drivers of the same schedlab build hand out with
run --executor temporal://HOST:PORT, --slots at a time, until it is interrupted. Workers
poll a task queue named after their version (see schedlab version), so a worker never
runs another build's tasks.

Give a machine as many slots as cores. A MARL training learns on the cores of the
slots no other task holds (a task that arrives waits at most for the end of the
update that borrowed its slot), so a training alone on a worker is not held to one core.

The run directory must be visible to every worker at the same path (a shared
filesystem): only paths and hashes travel through Temporal, and a task checks the
sha256 of every input before it runs.`,
		Example: `  schedlab worker --temporal temporal.example.org:7233 --slots 16`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if hostPort == "" {
				return usageErrorf("worker: --temporal HOST:PORT is required")
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runTemporalWorker(ctx, hostPort, namespace, slots, a.log)
		},
	}
	if !temporalBuilt {
		cmd.Long += "\n\n" + errNoTemporal.Error() + "."
	}
	f := cmd.Flags()
	f.StringVar(&hostPort, "temporal", "", "Temporal frontend, HOST:PORT")
	f.StringVar(&namespace, "namespace", defaultNamespace, "Temporal namespace")
	f.IntVar(&slots, "slots", 1, "tasks run at once (cores the worker may use)")
	return cmd
}

// newExecutor builds the executor named by run's --executor: "" runs
// every stage's work in this process as always; "local" runs it as tasks
// in this process (the same path a cluster takes, on one machine);
// temporal://HOST:PORT[/NAMESPACE][?heartbeat_timeout=D] on a Temporal
// cluster. close releases it.
func newExecutor(ctx context.Context, spec string, workers int, a *app) (ex pipeline.Executor, close func(), err error) {
	switch {
	case spec == "":
		return nil, func() {}, nil
	case spec == "local":
		return pipeline.Local{Workers: workers}, func() {}, nil
	case strings.HasPrefix(spec, "temporal://"):
		return dialTemporal(ctx, spec, a.log)
	}
	return nil, nil, usageErrorf("--executor %q: want local or temporal://HOST:PORT[/NAMESPACE][?heartbeat_timeout=D]", spec)
}
