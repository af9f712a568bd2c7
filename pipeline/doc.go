// Package pipeline is the generic engine that runs schedlab's staged dataflow.
//
// A run is a DAG of Stages. Each Stage is a named, versioned unit that
// declares the artifacts it consumes and produces (paths relative to the run
// directory, or external files such as raw traces) and the subset of the
// configuration it depends on. The Runner executes stages concurrently in
// dependency order under one context: the first error cancels every other
// stage and is returned wrapped with the failing stage's name; a panic in a
// stage comes back as an error.
//
// Artifacts are content addressed. A stage's cache key is the hash of its
// name, version, config subset and the sha256 of every input; when the Store
// holds a record for that key whose outputs are still present with their
// recorded hashes, the stage is skipped. Stages write into a private staging
// directory and the Runner renames finished outputs into place, so an
// interrupted run never leaves a file that a later run would trust.
//
// Inside a stage, streaming work exchanges Arrow record batches over small
// bounded channels (see Flow, Send and Recv): a full channel blocks the
// producer, which is the backpressure, and every send and receive selects on
// cancellation.
//
// Nothing outside a command's directory is written through it: the lock
// is never a symbolic link (LockDir), records are read bounded from
// regular files (ReadRecord), and every path written, renamed or removed
// below the directory passes LocalPath.
//
// Every random stream is derived from the run seed and a stable name, a
// declared Stream and Key parts (Rand), so outputs never depend on
// scheduling, GOMAXPROCS or worker counts. Wall-clock figures go only to
// the Manifest.
package pipeline
