package profiling

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ErrFormat is wrapped by every ParseError: the input is not in the format
// the reader expects.
var ErrFormat = errors.New("profiling: bad profiler output")

// ParseError locates a problem in a profiler file.
type ParseError struct {
	File  string // name given to the reader
	Line  int    // 1-based; 0 when the problem is the file as a whole
	Field string // column, metric or label; "" when not applicable
	Msg   string
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": %s", e.Field)
	}
	fmt.Fprintf(&b, ": %s", e.Msg)
	return b.String()
}

func (e *ParseError) Unwrap() error { return ErrFormat }

func parseErr(file string, line int, field, format string, args ...any) error {
	return &ParseError{File: file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Reading is one utilisation figure read from a profiler file: what the
// readers' outputs have in common, and the rows of `schedlab profile
// import`. Entity names what was measured: "gpu0", "pid1234", "cpu",
// "cpu3", a pod name. Metric is one of the Metric* constants.
type Reading struct {
	Source string  `parquet:"source" json:"source"` // reader format: dmon, dcgm, nsys, proc-stat, proc-pid-stat, pidstat
	File   string  `parquet:"file" json:"file"`
	Line   int32   `parquet:"line" json:"line"`
	Entity string  `parquet:"entity" json:"entity"`
	Metric string  `parquet:"metric" json:"metric"`
	Value  float64 `parquet:"value" json:"value"`
	Unit   string  `parquet:"unit" json:"unit"`
}

// Metrics of Reading.
const (
	MetricPCIeRx   = "pcie_rx"   // Gbit/s host→device
	MetricPCIeTx   = "pcie_tx"   // Gbit/s device→host
	MetricPCIeHtoD = "pcie_htod" // bytes over a profile, host→device
	MetricPCIeDtoH = "pcie_dtoh" // bytes over a profile, device→host
	MetricGPUUtil  = "gpu_util"  // percent
	MetricCPU      = "cpu"       // cores
	MetricCPUTicks = "cpu_ticks" // clock ticks of user+system time (a counter)
)

// lineScanner yields lines with their 1-based numbers; long lines (up to
// 1 MiB) are fine, longer ones are an error that names the line. A UTF-8
// byte-order mark before the first line is dropped: it would otherwise
// hide that line's first word (proc-stat's aggregate "cpu" line).
type lineScanner struct {
	sc   *bufio.Scanner
	line int
	last lastByte
}

func newLineScanner(r io.Reader) *lineScanner {
	l := &lineScanner{}
	l.last.r = r
	l.sc = bufio.NewScanner(&l.last)
	l.sc.Buffer(make([]byte, 64*1024), 1<<20)
	return l
}

func (l *lineScanner) next() (string, bool) {
	if !l.sc.Scan() {
		return "", false
	}
	l.line++
	t := l.sc.Text()
	if l.line == 1 {
		t = strings.TrimPrefix(t, "\ufeff")
	}
	return strings.TrimRight(t, "\r"), true
}

// endsInNewline reports whether the input, read to its end, was empty or
// ended with a line feed (a file cut short mid-line does not).
func (l *lineScanner) endsInNewline() bool { return l.last.n == 0 || l.last.b == '\n' }

// lastByte remembers the last byte read through it.
type lastByte struct {
	r io.Reader
	b byte
	n int64
}

func (lb *lastByte) Read(p []byte) (int, error) {
	n, err := lb.r.Read(p)
	if n > 0 {
		lb.b, lb.n = p[n-1], lb.n+int64(n)
	}
	return n, err
}

func (l *lineScanner) err(file string) error {
	if err := l.sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", file, l.line+1, err)
	}
	return nil
}

// parseNumber parses a decimal number that may use a comma as the decimal
// separator (pidstat under a de_DE locale) but not as a thousands one.
func parseNumber(s string) (float64, error) {
	if strings.Count(s, ",") == 1 && !strings.Contains(s, ".") {
		s = strings.Replace(s, ",", ".", 1)
	}
	v, err := strconv.ParseFloat(s, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("out of range (beyond ±%g): %q", math.MaxFloat64, s)
	}
	if err != nil {
		return 0, fmt.Errorf("not a number: %q", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("not finite: %q", s)
	}
	return v, nil
}
