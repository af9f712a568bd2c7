package profiling

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func open(t testing.TB, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// readFixture reads testdata/name with one of the readers, which must
// accept it.
func readFixture[T any](t testing.TB, read func(io.Reader, string) ([]T, error), name string) []T {
	t.Helper()
	rows, err := read(open(t, name), name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return rows
}

// approx compares readings derived by unit conversion; 1e-9 relative is
// far below any rounding in the fixtures' printed digits.
func approx(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestReadDmon(t *testing.T) {
	rows := readFixture(t, ReadDmon, "dmon.txt")
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	rx, tx := rows[0].PCIeGbps()
	if rows[0].GPU != 0 || rows[0].Line != 3 || !approx(rx, 4120*8e-3) || !approx(tx, 870*8e-3) {
		t.Errorf("row 0: %+v rx %g tx %g", rows[0], rx, tx)
	}
	if rx, _ := rows[2].PCIeGbps(); !math.IsNaN(rx) || !math.IsNaN(rows[2].Values["mtemp"]) {
		t.Errorf("'-' should read as NaN, got %g", rx)
	}
	if got := DmonReadings(rows, "dmon.txt"); len(got) != 5*3-2 {
		t.Errorf("%d readings, want 13 (two NaN PCIe cells skipped)", len(got))
	}
	dt := readFixture(t, ReadDmon, "dmon_dt.txt")
	if dt[0].Date != "20261122" || dt[0].Time != "14:00:01" || dt[1].GPU != 1 || dt[0].Values["rxpci"] != 11000 {
		t.Errorf("-o DT row: %+v", dt[0])
	}
}

func TestReadDCGM(t *testing.T) {
	ms := readFixture(t, ReadDCGM, "dcgm.prom")
	if len(ms) != 5 {
		t.Fatalf("%d metrics, want 5", len(ms))
	}
	if ms[0].Label("pod") != "resnet50-worker-0" || ms[0].Label("namespace") != "team-a" || ms[0].Value != 87 {
		t.Errorf("metric 0: %+v", ms[0])
	}
	if ms[3].Timestamp != 1763820000000 || ms[3].Value != 4125000000 {
		t.Errorf("timestamped metric: %+v", ms[3])
	}
	if got := ms[4].Label("note"); got != `a "quoted", comma` {
		t.Errorf("escaped label: %q", got)
	}
	rd := DCGMReadings(ms, "dcgm.prom")
	if len(rd) != 4 || rd[0].Entity != "team-a/resnet50-worker-0" || rd[1].Entity != "gpu1" || !approx(rd[3].Value, 33) {
		t.Errorf("readings: %+v", rd)
	}
}

func TestReadNsysMem(t *testing.T) {
	for _, name := range []string{"nsys_new.csv", "nsys_old.csv"} {
		rows := readFixture(t, ReadNsysMem, name)
		if rows[0].Direction != HostToDevice || rows[1].Direction != DeviceToHost || !approx(rows[0].TotalMB, 1204.224) || rows[0].Count != 1530 {
			t.Errorf("%s: %+v", name, rows[:2])
		}
		if got := NsysReadings(rows, name); len(got) != 2 || !approx(got[0].Value, 1204.224e6) {
			t.Errorf("%s: readings %+v", name, got)
		}
	}
}

// TestNsysBlankLines: whitespace-only lines (before the header and among
// the rows) are blank, as in every other reader: the same rows as without
// them, at their own line numbers.
func TestNsysBlankLines(t *testing.T) {
	const report = "Total (MB),Count,Operation\n1204.224,1530,[CUDA memcpy HtoD]\n2.5,3,[CUDA memcpy DtoH]\n"
	want, err := ReadNsysMem(strings.NewReader(report), "o.csv")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadNsysMem(strings.NewReader("  \n"+strings.Replace(report, "\n2.5", "\n \t\n\n2.5", 1)+"   \n"), "o.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || got[0].TotalMB != want[0].TotalMB || got[1].TotalMB != want[1].TotalMB || got[1].Line != 6 {
		t.Errorf("with blank lines %+v, without %+v", got, want)
	}
}

func TestReadProc(t *testing.T) {
	before := readFixture(t, ReadProcStat, "proc_stat.txt")
	after := readFixture(t, ReadProcStat, "proc_stat_after.txt")
	if len(before) != 3 || before[1].CPU != "cpu0" {
		t.Fatalf("cpu lines: %+v", before)
	}
	// cpu0: busy +110, idle +90 → 0.55 cores.
	c, err := BusyCores(before[1], after[1], 1)
	if err != nil || !approx(c, 0.55) {
		t.Errorf("cpu0 busy cores %g (%v), want 0.55", c, err)
	}
	if _, err := BusyCores(after[1], before[1], 1); err == nil {
		t.Error("ticks going backwards: no error")
	}

	b, _ := os.ReadFile(filepath.Join("testdata", "proc_pid_stat.txt"))
	p, err := ParsePidStat(string(b), "proc_pid_stat.txt")
	if err != nil {
		t.Fatal(err)
	}
	if p.PID != 12345 || p.Comm != "python3 train.py" || p.State != 'R' || p.UTime != 98231 || p.STime != 2045 || p.StartTime != 883421 || p.Processor != 1 {
		t.Errorf("pid stat: %+v", p)
	}
	b, _ = os.ReadFile(filepath.Join("testdata", "proc_pid_stat_paren.txt"))
	q, err := ParsePidStat(string(b), "proc_pid_stat_paren.txt")
	if err != nil || q.Comm != "a (weird) name" || q.UTime != 5 || q.STime != 7 {
		t.Errorf("comm with parentheses: %+v %v", q, err)
	}
	later := p
	later.UTime += 600
	if c, err := ProcessCores(p, later, 100, 2); err != nil || !approx(c, 3) {
		t.Errorf("process cores %g (%v), want 3", c, err)
	}
}

func TestReadPidStat(t *testing.T) {
	en := readFixture(t, ReadPidStat, "pidstat_en.txt")
	if len(en) != 5 || en[0].Time != "02:00:02 PM" || en[0].PID != 12345 || en[0].Cores() != 6.01 || en[0].UID != 1000 {
		t.Errorf("en rows: %+v", en)
	}
	if !en[3].Average || en[3].CPU != 605 || en[4].Command != "stress-ng" {
		t.Errorf("average rows: %+v", en[3:])
	}
	de := readFixture(t, ReadPidStat, "pidstat_de.txt")
	if len(de) != 2 || de[0].CPU != 601 || de[0].Usr != 580 || de[0].Command != "python3 train.py --epochs 90" || !de[1].Average || de[0].Time != "14:00:02" {
		t.Errorf("de rows: %+v", de)
	}
}

func TestReaderErrors(t *testing.T) {
	tests := []struct {
		name string
		read func() error
		want string
	}{
		{"dmon bad number", func() error { _, err := ReadDmon(open(t, "dmon_bad.txt"), "dmon_bad.txt"); return err }, `dmon_bad.txt:3: txpci: not a number: "lots"`},
		{"dmon no header", func() error { _, err := ReadDmon(strings.NewReader("0 1 2\n"), "x.txt"); return err }, "x.txt:1: data before the '# gpu ...' header line"},
		{"dcgm unterminated", func() error { _, err := ReadDCGM(open(t, "dcgm_bad.prom"), "dcgm_bad.prom"); return err }, "dcgm_bad.prom:1: DCGM_FI_DEV_GPU_UTIL: unterminated value of label pod"},
		{"dcgm negative rate", func() error {
			_, err := ReadDCGM(strings.NewReader(`DCGM_FI_PROF_PCIE_TX_BYTES{gpu="0"} -5`), "n.prom")
			return err
		}, "n.prom:1: DCGM_FI_PROF_PCIE_TX_BYTES: implausible PCIe rate -5 bytes/s"},
		{"nsys bad total", func() error { _, err := ReadNsysMem(open(t, "nsys_bad.csv"), "nsys_bad.csv"); return err }, `nsys_bad.csv:2: Total: not a number: "12x"`},
		{"nsys not a report", func() error { _, err := ReadNsysMem(strings.NewReader("a,b\n1,2\n"), "o.csv"); return err }, "o.csv: no header with an Operation column: not an nsys memory-size report"},
		{"proc stat short", func() error { _, err := ReadProcStat(strings.NewReader("cpu 1 2\n"), "stat"); return err }, "stat:1: cpu: 2 tick fields, want 4 to 10"},
		{"pid stat no comm", func() error { _, err := ParsePidStat("12 python R", "12/stat"); return err }, `12/stat:1: comm: no (comm) in "12 python R"`},
		{"pidstat negative", func() error { _, err := ReadPidStat(open(t, "pidstat_bad.txt"), "pidstat_bad.txt"); return err }, `pidstat_bad.txt:2: %CPU: "-5.00": negative percentage`},
	}
	for _, tt := range tests {
		err := tt.read()
		if err == nil || err.Error() != tt.want || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: got %v, want %q wrapping ErrFormat", tt.name, err, tt.want)
		}
	}
}

func TestImport(t *testing.T) {
	tests := []struct {
		format string
		files  []string
		want   int
	}{
		{"dmon", []string{"dmon.txt", "dmon_dt.txt"}, 13 + 6},
		{"dcgm", []string{"dcgm.prom"}, 4},
		{"nsys", []string{"nsys_new.csv", "nsys_old.csv"}, 4},
		{"proc-stat", []string{"proc_stat.txt"}, 3},
		{"proc-pid-stat", []string{"proc_pid_stat.txt"}, 1},
		{"pidstat", []string{"pidstat_en.txt"}, 5},
	}
	for _, tt := range tests {
		var paths []string
		for _, f := range tt.files {
			paths = append(paths, filepath.Join("testdata", f))
		}
		rd, err := Import(context.Background(), tt.format, paths)
		if err != nil || len(rd) != tt.want {
			t.Errorf("%s: %d readings (%v), want %d", tt.format, len(rd), err, tt.want)
		}
	}
	if _, err := Import(context.Background(), "perf", nil); err == nil {
		t.Error("unknown format accepted")
	}
	_, err := Import(context.Background(), "pidstat", []string{filepath.Join("testdata", "pidstat_bad.txt")})
	if !errors.Is(err, ErrFormat) {
		t.Errorf("bad file: %v", err)
	}
}

// TestHostileProfilerFiles: each case was accepted, silently wrong, or
// misreported before issue 16.
func TestHostileProfilerFiles(t *testing.T) {
	dcgm, err := os.ReadFile(filepath.Join("testdata", "dcgm.prom"))
	if err != nil {
		t.Fatal(err)
	}
	stat, err := os.ReadFile(filepath.Join("testdata", "proc_stat.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// A byte-order mark used to hide proc-stat's aggregate "cpu" line.
	want, err := ReadProcStat(bytes.NewReader(stat), "stat")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadProcStat(bytes.NewReader(append([]byte("\ufeff"), stat...)), "stat")
	if err != nil || len(got) != len(want) || got[0].CPU != "cpu" {
		t.Errorf("proc-stat after a BOM: %+v (%v), want %d lines starting with the aggregate", got, err, len(want))
	}
	if p, err := ParsePidStat("\ufeff12 (python) R 1 1 1 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 55 0 0", "12/stat"); err != nil || p.PID != 12 || p.UTime != 7 {
		t.Errorf("pid stat after a BOM: %+v, %v", p, err)
	}
	// dcgm used to accept an empty or truncated file.
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "x.prom: no samples: empty, or not dcgm-exporter output"},
		{"comments only", []byte("# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"), "x.prom: no samples: empty, or not dcgm-exporter output"},
		{"cut mid-line", dcgm[:len(dcgm)-2], "truncated: the last line has no line end"},
		{"cut after a TYPE line", append(append([]byte{}, dcgm...), "# HELP DCGM_FI_DEV_FB_USED x\n# TYPE DCGM_FI_DEV_FB_USED gauge\n"...), "DCGM_FI_DEV_FB_USED: truncated: no sample after its # TYPE line"},
		{"value 1e400", []byte("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 1e400\n"), "out of range"},
	} {
		_, err := ReadDCGM(bytes.NewReader(tc.b), "x.prom")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrFormat) {
			t.Errorf("dcgm %s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := parseNumber("1e400"); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("1e400: %v, want out of range", err)
	}
}

// TestImportHostile: a pod label that is not UTF-8 used to go into the
// readings table as is (DuckDB then refuses it), and a file named twice
// was read twice.
func TestImportHostile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.prom")
	if err := os.WriteFile(bad, []byte("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",pod=\"w\xff\"} 50\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Import(context.Background(), "dcgm", []string{bad})
	if err == nil || !strings.Contains(err.Error(), "bad.prom:1: entity: invalid UTF-8") || !errors.Is(err, ErrFormat) {
		t.Errorf("invalid UTF-8 pod: %v", err)
	}
	good := filepath.Join("testdata", "dmon.txt")
	_, err = Import(context.Background(), "dmon", []string{good, "./" + good})
	if err == nil || !strings.Contains(err.Error(), "named twice") {
		t.Errorf("file named twice: %v", err)
	}
}
