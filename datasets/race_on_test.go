//go:build race

package datasets

// raceEnabled is true under the race detector, where decoding and
// writing Parquet take five to twenty times as long, so some tests do less
// there, and the non-race pass of make test (make test-norace) runs them
// whole:
//   - TestGoogleRealFull (2 million rows of the full Google trace) and
//     TestElasticFlowReal (69,351 rows of ten files) are skipped;
//   - TestGoogleRealSubset checks the first 8 parts of the trace, not 20;
//   - TestDatasetGoogleReal refreshes a dataset of 6 real parts, not 10;
//   - TestConcatParquetSameBytes concatenates 23,064 rows, not 221,064,
//     in batches of 640 and 100 (not also 64 and writeBatch);
//   - TestReadParquetRefusesRepeatedRowsAsTheyStream writes 3,000 rows,
//     not 300,000, and does not check its bound on allocation;
//   - TestMARLWorkloadSeeds and TestPAILikeSplitSeeds check 20 seeds, not
//     200 (propertySeeds).
const raceEnabled = true
