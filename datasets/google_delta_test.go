package datasets

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/parquet-go/parquet-go/format"
	"github.com/schedlab/schedlab/internal/duckdbtest"
	"github.com/schedlab/schedlab/internal/parquetfile"
	"github.com/schedlab/schedlab/internal/parquettest"
)

// googleDeltaTimestamps are the timestamps a delta encoder finds hardest:
// the two markers (0 before the window, 2^63−1 after it) next to ordinary
// values, so that consecutive deltas overflow int64 and must wrap, and
// enough rows (more than one 128-value block) that every block's
// bit width is exercised.
func googleDeltaTimestamps() []int64 {
	ts := []int64{0, 0, GoogleWindowStartUS, GoogleAfterWindowUS, 0, GoogleAfterWindowUS, GoogleWindowStartUS + 1, GoogleMaxTimestampUS, 1}
	for i := range int64(300) {
		ts = append(ts, GoogleWindowStartUS+i*i*1_000_003)
	}
	return append(ts, GoogleAfterWindowUS, GoogleAfterWindowUS, 0)
}

// TestGoogleTimestampDelta writes job_events with timestamp_us
// DELTA_BINARY_PACKED and checks that the column chunk says so and that
// three independent readers (parquet-go, Arrow's pqarrow, DuckDB) read
// every value back exactly, the wrapping deltas around 0 and 2^63−1
// included.
func TestGoogleTimestampDelta(t *testing.T) {
	ts := googleDeltaTimestamps()
	rows := make([]GoogleJobEvent, len(ts))
	for i, v := range ts {
		rows[i] = GoogleJobEvent{TimestampUS: v, JobID: int64(i), EventType: int32(i % 9), SchedulingClass: int32(i % 4), User: "u"}
	}
	path := filepath.Join(t.TempDir(), JobEventsFile)
	if err := WriteParquet(path, FileMeta{Source: SourceGoogle2011}, rows); err != nil {
		t.Fatal(err)
	}

	f, pf, err := parquetfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, rg := range pf.Metadata().RowGroups {
		cm := rg.Columns[0].MetaData
		if cm.PathInSchema[0] != "timestamp_us" || !slices.Contains(cm.Encoding, format.DeltaBinaryPacked) || slices.Contains(cm.Encoding, format.Plain) {
			t.Errorf("column %v encodings %v, want DELTA_BINARY_PACKED only", cm.PathInSchema, cm.Encoding)
		}
	}

	back, err := ReadParquet[GoogleJobEvent](path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(rows) {
		t.Fatalf("parquet-go reads %d rows, want %d", len(back), len(rows))
	}
	for i := range rows {
		if back[i].TimestampUS != ts[i] || back[i].JobID != int64(i) {
			t.Fatalf("parquet-go row %d: timestamp %d job %d, want %d %d", i, back[i].TimestampUS, back[i].JobID, ts[i], i)
		}
	}

	_, tbl := parquettest.ReadTableMeta(t, path)
	var got []int64
	for _, ch := range tbl.Column(0).Data().Chunks() {
		got = append(got, ch.(*array.Int64).Int64Values()...)
	}
	if !slices.Equal(got, ts) {
		t.Errorf("arrow reads timestamps\n%v\nwant\n%v", got, ts)
	}

	// DuckDB copies every timestamp out as text: no value goes through a
	// float on the way.
	out := filepath.Join(t.TempDir(), "ts.csv")
	duckdbtest.Query(t, fmt.Sprintf("COPY (SELECT timestamp_us::VARCHAR AS ts FROM read_parquet(%s)) TO %s (HEADER)", duckdbtest.Literal(path), duckdbtest.Literal(out)))
	fh, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	recs, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, r := range recs[1:] {
		v, err := strconv.ParseInt(r[0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if !slices.Equal(got, ts) {
		t.Errorf("duckdb reads timestamps\n%v\nwant\n%v", got, ts)
	}
	if got[3] != math.MaxInt64 {
		t.Errorf("2^63−1 read back as %d", got[3])
	}
}
