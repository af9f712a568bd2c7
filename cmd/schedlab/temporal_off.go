//go:build !temporal

package main

import (
	"context"
	"log/slog"

	"github.com/schedlab/schedlab/pipeline"
)

// temporalBuilt says that this build has the Temporal executor.
const temporalBuilt = false

// defaultNamespace is temporalexec.DefaultNamespace, which this build
// does not link.
const defaultNamespace = "default"

func runTemporalWorker(context.Context, string, string, int, *slog.Logger) error {
	return usageError{errNoTemporal}
}

func dialTemporal(context.Context, string, *slog.Logger) (pipeline.Executor, func(), error) {
	return nil, nil, usageError{errNoTemporal}
}
