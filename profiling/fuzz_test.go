package profiling

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// addFixtures seeds a fuzz target with the reader's fixture files (the
// checked-in corpora under testdata/fuzz/ hold further cases).
func addFixtures(f *testing.F, names ...string) {
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// checkErr requires every failure to be a located ParseError (or an I/O
// error, impossible from a bytes.Reader except line-too-long).
func checkErr(t *testing.T, err error) {
	if err == nil {
		return
	}
	var pe *ParseError
	if !errors.As(err, &pe) && !bytes.Contains([]byte(err.Error()), []byte("token too long")) {
		t.Fatalf("error is not a ParseError: %v", err)
	}
}

func FuzzReadDmon(f *testing.F) {
	addFixtures(f, "dmon.txt", "dmon_dt.txt", "dmon_bad.txt")
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := ReadDmon(bytes.NewReader(b), "fuzz")
		checkErr(t, err)
		for _, r := range rows {
			for k, v := range r.Values {
				if v < 0 || math.IsInf(v, 0) {
					t.Fatalf("line %d: %s = %g", r.Line, k, v)
				}
			}
		}
	})
}

func FuzzReadDCGM(f *testing.F) {
	addFixtures(f, "dcgm.prom", "dcgm_bad.prom")
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := ReadDCGM(bytes.NewReader(b), "fuzz")
		checkErr(t, err)
		for _, m := range ms {
			if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) || m.Name == "" {
				t.Fatalf("line %d: %+v", m.Line, m)
			}
		}
	})
}

func FuzzReadNsysMem(f *testing.F) {
	addFixtures(f, "nsys_new.csv", "nsys_old.csv", "nsys_bad.csv")
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := ReadNsysMem(bytes.NewReader(b), "fuzz")
		checkErr(t, err)
		for _, r := range rows {
			if !(r.TotalMB >= 0) || r.Count < 0 {
				t.Fatalf("line %d: %+v", r.Line, r)
			}
		}
	})
}

func FuzzReadProcStat(f *testing.F) {
	addFixtures(f, "proc_stat.txt", "proc_stat_after.txt", "proc_pid_stat.txt")
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := ReadProcStat(bytes.NewReader(b), "fuzz")
		checkErr(t, err)
		_, err = ParsePidStat(string(b), "fuzz")
		checkErr(t, err)
	})
}

func FuzzReadPidStat(f *testing.F) {
	addFixtures(f, "pidstat_en.txt", "pidstat_de.txt", "pidstat_bad.txt")
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := ReadPidStat(bytes.NewReader(b), "fuzz")
		checkErr(t, err)
		for _, r := range rows {
			if !(r.CPU >= 0) || r.PID <= 0 {
				t.Fatalf("line %d: %+v", r.Line, r)
			}
		}
	})
}
