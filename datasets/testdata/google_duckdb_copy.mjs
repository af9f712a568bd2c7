// The DuckDB side of the google-2011 ingest comparison: DuckDB's own CSV
// reader turns the job_events parts into one Parquet file.
//
//   node google_duckdb_copy.mjs 'DIR/part-*.csv.gz' OUT.parquet
//
// Run it where @duckdb/node-api is installed (npm install
// @duckdb/node-api@1.5.6-r.1; internal/duckdbtest keeps one in the user
// cache directory, under schedlab/duckdb-node-1.5.6-r.1), beside
//
//   /usr/bin/time -v schedlab ingest --source google-2011 --input DIR --out OUTDIR
//
// and compare wall time and "Maximum resident set size".
import { DuckDBInstance } from '@duckdb/node-api';

const [glob, out] = process.argv.slice(2);
if (!glob || !out) {
  console.error("usage: node google_duckdb_copy.mjs 'DIR/part-*.csv.gz' OUT.parquet");
  process.exit(2);
}
const quote = (s) => "'" + s.replaceAll("'", "''") + "'";
const inst = await DuckDBInstance.create(':memory:');
const conn = await inst.connect();
await conn.run(`COPY (SELECT * FROM read_csv(${quote(glob)}, header=false)) TO ${quote(out)}`);
