package profiling

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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

// fuzzRows fuzzes a line reader seeded with the fixture files: every
// failure is a located ParseError and every row it accepts passes bad
// (which names what is wrong with the row, "" for nothing).
func fuzzRows[R any](f *testing.F, read func(io.Reader, string) ([]R, error), bad func(R) string, fixtures ...string) {
	addFixtures(f, fixtures...)
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := read(bytes.NewReader(b), "fuzz")
		checkErr(t, err)
		for _, r := range rows {
			if msg := bad(r); msg != "" {
				t.Fatal(msg)
			}
		}
	})
}

func FuzzReadDmon(f *testing.F) {
	fuzzRows(f, ReadDmon, func(r DmonRow) string {
		for k, v := range r.Values {
			if v < 0 || math.IsInf(v, 0) {
				return fmt.Sprintf("line %d: %s = %g", r.Line, k, v)
			}
		}
		return ""
	}, "dmon.txt", "dmon_dt.txt", "dmon_bad.txt")
}

func FuzzReadDCGM(f *testing.F) {
	fuzzRows(f, ReadDCGM, func(m DCGMMetric) string {
		if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) || m.Name == "" {
			return fmt.Sprintf("line %d: %+v", m.Line, m)
		}
		return ""
	}, "dcgm.prom", "dcgm_bad.prom")
}

func FuzzReadNsysMem(f *testing.F) {
	fuzzRows(f, ReadNsysMem, func(r NsysMemRow) string {
		if !(r.TotalMB >= 0) || r.Count < 0 {
			return fmt.Sprintf("line %d: %+v", r.Line, r)
		}
		return ""
	}, "nsys_new.csv", "nsys_old.csv", "nsys_bad.csv")
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
	fuzzRows(f, ReadPidStat, func(r PidStatRow) string {
		if !(r.CPU >= 0) || r.PID <= 0 {
			return fmt.Sprintf("line %d: %+v", r.Line, r)
		}
		return ""
	}, "pidstat_en.txt", "pidstat_de.txt", "pidstat_bad.txt")
}
