package datasets_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
)

func TestReadArrivals(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "a.csv")
	os.WriteFile(good, []byte("jobs,interval,start_s,extra\n7,1,1800,x\n5,0,0,y\n"), 0o644)
	rows, err := datasets.ReadArrivals(good)
	if err != nil || len(rows) != 2 || rows[0] != (datasets.Arrival{Interval: 0, StartS: 0, Jobs: 5}) || rows[1] != (datasets.Arrival{Interval: 1, StartS: 1800, Jobs: 7}) {
		t.Errorf("got %v, %v", rows, err)
	}
	pq := filepath.Join(dir, "a.parquet")
	if err := datasets.WriteParquet(pq, datasets.FileMeta{Source: "test"}, rows); err != nil {
		t.Fatal(err)
	}
	if back, err := datasets.ReadArrivals(pq); err != nil || len(back) != 2 || back[1] != rows[1] {
		t.Errorf("parquet: %v, %v", back, err)
	}
	for body, want := range map[string]string{
		"interval,jobs\n0,1\n":                  `lacks column "start_s"`,
		"interval,start_s,jobs\n0,0,1\n1,x,2\n": "b.csv:3: start_s",
		"interval,start_s,jobs\n0,0,-1\n":       "field jobs: line 2: -1 outside",
		"interval,start_s,jobs\n":               "no arrivals rows",
	} {
		bad := filepath.Join(dir, "b.csv")
		os.WriteFile(bad, []byte(body), 0o644)
		if _, err := datasets.ReadArrivals(bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", body, err, want)
		}
	}
}

// An arrivals CSV is held to the bounds a Parquet arrivals table is read
// with: NaN, ±Inf or negative start times, negative intervals or counts
// are refused naming the file, the line and the column; blank lines are
// skipped and do not shift the line named.
func TestReadArrivalsCSVBounds(t *testing.T) {
	for value, col := range map[string]string{
		"0,NaN,3": "start_s", "0,+Inf,3": "start_s", "0,-Inf,3": "start_s", "0,-1e308,3": "start_s",
		"-1,0,3": "interval", "0,0,-3": "jobs",
	} {
		p := filepath.Join(t.TempDir(), "a.csv")
		os.WriteFile(p, []byte("interval,start_s,jobs\n\n1,1800,2\n"+value+"\n"), 0o644)
		_, err := datasets.ReadArrivals(p)
		if err == nil || !strings.Contains(err.Error(), "line 4") || !strings.Contains(err.Error(), col) {
			t.Errorf("%s: %v, want an error naming line 4 and %s", value, err, col)
		}
	}
}

// FuzzArrivalsCSV: any bytes give rows within the bounds or an error,
// never a panic.
func FuzzArrivalsCSV(f *testing.F) {
	f.Add([]byte("interval,start_s,jobs\n0,0,3\n1,1800,2\n"))
	f.Add([]byte("interval,start_s,jobs\n0,NaN,3\n"))
	f.Add([]byte("jobs,interval,start_s\n\n\n3,0,-1e308\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "a.csv")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := datasets.ReadArrivals(p)
		if err != nil {
			return
		}
		for i := range rows {
			if bf := datasets.CheckRow(&rows[i]); bf != nil {
				t.Fatalf("row %d passed with %s %s", i, bf.Field, bf.Reason)
			}
		}
	})
}
