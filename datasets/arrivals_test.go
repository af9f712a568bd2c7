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
		"interval,start_s,jobs\n0,0,-1\n":       "jobs = -1",
		"interval,start_s,jobs\n":               "no arrivals rows",
	} {
		bad := filepath.Join(dir, "b.csv")
		os.WriteFile(bad, []byte(body), 0o644)
		if _, err := datasets.ReadArrivals(bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", body, err, want)
		}
	}
}
