// Package datasets owns schedlab's canonical tables and how data enters
// them: the Arrow and Parquet schemas of DESIGN.md §2 (jobs, arrivals, ...),
// trace readers for the public GPU-cluster traces, seeded synthetic workload
// generators, and Parquet reading and writing.
//
// Data enters as raw trace files or generator parameters and leaves as Arrow
// record batches (streamed through pipeline channels) or Parquet files whose
// key-value metadata carries schedlab.schema_version, schedlab.source and the
// producing run's config hash, never a timestamp. An ingest commits its
// tables as one set (IngestInto), or, for a trace of many independent
// files, as a partitioned dataset refreshed file by file (IngestDataset,
// dataset.go), which ReadParquet reads like one file. Every table read
// (ReadParquet, ConcatParquet) is held to the bounds ingest applies, from
// one table (columnBounds, bounds.go); _dataset.json is validated
// (Dataset.Validate) and every path it names stays inside the dataset.
//
// It is also where workloads are cut for the experiments, so that training
// needs nothing from evaluation: SortBySubmission is the one order of jobs
// in time, SplitTrace the one train/validation/test cut of a trace (both
// training and evaluation call it, so an evaluated job cannot reach
// training), GenerateMARL and ReadArrivals the MARL paper's workloads, and
// SplitMARL their per-pod 90/10 split.
//
// # Adding a trace source
//
//  1. Write a Reader that streams the raw files as rows of the canonical
//     schema (a Job through JobsIngest.AcceptRow, which checks each job's
//     ranges and id and writes it to Parquet in batches, or an Arrival),
//     counting every row it reads and sending each bad row to quarantine
//     with its file, line, field and reason (read = accepted +
//     quarantined).
//  2. Register it (Register, from the file's init) under a source name, so
//     that `schedlab ingest --source NAME`, `schedlab list sources` and the
//     ingest stage find it; say in its doc comment how its columns map to
//     the canonical fields and their bounds (CheckJob, CheckNode). A
//     reader that writes other tables than the jobs table says which
//     (Tabler), so that the ingest stage declares them and a run uses
//     them (an arrivals table feeds the google workload).
//  3. Test it: a small fixture you write under testdata/, a malformed-input
//     table, a fuzz test with a seed corpus and, where the real data are
//     present (internal/shareddata), exact row counts, skipped cleanly when
//     they are absent.
package datasets
