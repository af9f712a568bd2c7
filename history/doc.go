// Package history keeps the metrics of many schedlab runs in one
// Parquet dataset, so that a nightly job can see each headline number
// move over revisions and dates, and DuckDB or Spark can query every run
// as one table.
//
// Data enters as a finished run directory (Add): its manifest.json, read
// and checked as `schedlab diff` reads it (rundiff.OpenRun), and its
// eval/metrics.parquet, one row per evaluated cell (evaluation.MetricsRow,
// read by column name; a replicate column is carried when the file has
// one, 0 otherwise), its sha256 checked against the manifest's. A run is
// identified by its key: preset, revision, config hash and date, all from
// the manifest (the date is when the run's manifest was written, never
// the clock of the process that adds it; the revision is spelt as git
// describe --dirty spells it, pipeline.Versions.Describe, and "unknown"
// for a build that recorded none, whose runs the date and config hash
// still tell apart).
//
// Data leaves as a Hive-partitioned dataset:
//
//	DIR/preset=<preset>/revision=<revision>/metrics.parquet
//
// Each file holds every run of one preset and revision, one Row per cell,
// sorted by date, config hash and cell; adding a run rewrites its file
// atomically with the run's rows in place of any it held before, so
// adding the same run twice leaves the same bytes, and runs of one
// revision on other dates (or configurations) are kept beside it. The
// file's bytes depend only on the set of runs it holds, not on the order
// they were added in.
//
// The partition keys preset and revision live in the path only, as Hive
// and Spark expect: a file that held them too would be read by DuckDB with
// the path's value silently in place of the file's (DuckDB 1.5), and Spark
// refuses data and partition columns of one name (SPARK-21144). Partition values are
// escaped as Hive escapes them (%XX for '/', '=', '%', ':', control
// characters and the rest of Hive's list), which DuckDB and Spark undo.
// DuckDB guesses partition types by default (a revision "1234567" would
// read as a BIGINT); read with hive_types_autocast=false:
//
//	SELECT * FROM read_parquet('DIR/*/*/metrics.parquet',
//	                           hive_partitioning=true, hive_types_autocast=false)
//
// Plot draws each experiment's headline metrics (mean JCT in minutes, as
// the run report gives it, and mean fee, per cluster and scheduler) over
// the runs of a preset, ordered by date then revision, as SVG files with
// an index; each run is labelled by date, revision and configuration hash
// (which holds the run seed), so that runs of one revision are told apart.
package history
