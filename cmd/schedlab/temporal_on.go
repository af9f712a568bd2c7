//go:build temporal

package main

import (
	"context"
	"log/slog"

	"github.com/schedlab/schedlab/distributed/temporalexec"
	"github.com/schedlab/schedlab/pipeline"
)

// temporalBuilt says that this build has the Temporal executor.
const temporalBuilt = true

const defaultNamespace = temporalexec.DefaultNamespace

func runTemporalWorker(ctx context.Context, hostPort, namespace string, slots int, log *slog.Logger) error {
	return temporalexec.RunWorker(ctx, temporalexec.WorkerOptions{Slots: slots, Options: temporalexec.Options{
		HostPort: hostPort, Namespace: namespace, Log: log}})
}

// dialTemporal connects to the cluster of a temporal:// --executor.
func dialTemporal(ctx context.Context, spec string, log *slog.Logger) (pipeline.Executor, func(), error) {
	opt := temporalexec.Options{Log: log}
	if err := temporalexec.ParseEndpoint(spec, &opt); err != nil {
		return nil, nil, usageErrorf("--executor: %v", err)
	}
	e, err := temporalexec.Dial(ctx, opt)
	if err != nil {
		return nil, nil, err
	}
	return e, e.Close, nil
}
