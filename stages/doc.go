// Package stages holds the concrete stages of schedlab's standard DAG
// (ingest → validate → split → profile → fit → train → evaluate → export) and
// the run configuration that selects and parameterises them.
//
// Config is the plain, validated configuration of a whole run; cmd/schedlab
// decodes it strictly from its layers (presets, file, environment, flags)
// and passes it here. Build turns a Config into the list
// of pipeline.Stages that pipeline.Runner executes.
package stages
