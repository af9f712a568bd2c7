package profiling

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// PidStatRow is one per-process row of `pidstat -u` output.
type PidStatRow struct {
	Line    int
	Time    string // as printed ("10:00:02", "10:00:02 PM"); "" on Average rows
	Average bool   // an "Average:" summary row (label may be localised)
	UID     int    // -1 when the UID column is absent (older sysstat)
	PID     int
	// Percentages of one CPU; NaN when the column is absent.
	Usr, System, Guest, Wait, CPU float64
	Command                       string
}

// Cores is the row's CPU use in cores (%CPU / 100).
func (r PidStatRow) Cores() float64 { return r.CPU / 100 }

// ReadPidStat parses `pidstat -u [-p PID] [interval [count]]` output
// independently of the locale: columns are found by the names in the most
// recent header line (the one naming PID and %CPU), the time prefix may
// be "HH:MM:SS" or "HH:MM:SS AM", numbers may use a decimal comma, the
// summary label ("Average:", "Moyenne :", ...) is recognised as any
// prefix that is not a time, and a Command with spaces is kept whole.
// The banner ("Linux 6.1 (host) ...") and blank lines are skipped.
func ReadPidStat(r io.Reader, name string) ([]PidStatRow, error) {
	ls := newLineScanner(r)
	var cols []string // header columns after the prefix
	var out []PidStatRow
	for {
		l, ok := ls.next()
		if !ok {
			break
		}
		f := strings.Fields(l)
		if len(f) == 0 || f[0] == "Linux" || strings.HasPrefix(l, "Linux ") {
			continue
		}
		if k := headerStart(f); k >= 0 {
			cols = f[k:]
			continue
		}
		if cols == nil {
			return nil, parseErr(name, ls.line, "", "data before a header naming PID and %%CPU: not pidstat -u output")
		}
		p := rowPrefix(f)
		row := PidStatRow{Line: ls.line, UID: -1, Usr: math.NaN(), System: math.NaN(), Guest: math.NaN(), Wait: math.NaN(), CPU: math.NaN()}
		if isClock(f[0]) {
			row.Time = strings.Join(f[:p], " ")
		} else {
			row.Average = true
		}
		vals := f[p:]
		if len(vals) < len(cols) {
			return nil, parseErr(name, ls.line, "", "%d columns, header has %d (%s)", len(vals), len(cols), strings.Join(cols, " "))
		}
		if len(vals) > len(cols) { // Command with spaces (pidstat -l)
			vals = append(vals[:len(cols)-1:len(cols)-1], strings.Join(vals[len(cols)-1:], " "))
		}
		for i, c := range cols {
			v := vals[i]
			var err error
			switch c {
			case "UID":
				row.UID, err = strconv.Atoi(v)
			case "PID":
				row.PID, err = strconv.Atoi(v)
				if err == nil && row.PID <= 0 {
					err = fmt.Errorf("not a pid")
				}
			case "%usr":
				row.Usr, err = percent(v)
			case "%system":
				row.System, err = percent(v)
			case "%guest":
				row.Guest, err = percent(v)
			case "%wait":
				row.Wait, err = percent(v)
			case "%CPU":
				row.CPU, err = percent(v)
			case "Command":
				row.Command = v
			}
			if err != nil {
				return nil, parseErr(name, ls.line, c, "%q: %v", v, err)
			}
		}
		if math.IsNaN(row.CPU) {
			return nil, parseErr(name, ls.line, "%CPU", "missing")
		}
		out = append(out, row)
	}
	if err := ls.err(name); err != nil {
		return nil, err
	}
	if cols == nil {
		return nil, parseErr(name, 0, "", "no header naming PID and %%CPU: not pidstat -u output")
	}
	return out, nil
}

// headerStart returns the index of the first column name (UID, or PID in
// sysstat versions without UID) if f is a header line, else −1.
func headerStart(f []string) int {
	hasCPU, hasPID := false, false
	for _, x := range f {
		hasCPU = hasCPU || x == "%CPU"
		hasPID = hasPID || x == "PID"
	}
	if !hasCPU || !hasPID {
		return -1
	}
	for i, x := range f {
		if x == "UID" || x == "USER" || x == "PID" || x == "TGID" {
			return i
		}
	}
	return -1
}

// rowPrefix is the number of leading fields before the first column: a
// clock and an optional AM/PM marker (any non-numeric word), or a summary
// label of one word (two when a localised label has a space before ':').
func rowPrefix(f []string) int {
	if isClock(f[0]) {
		if len(f) > 1 && !isNumeric(f[1]) {
			return 2
		}
		return 1
	}
	if len(f) > 1 && f[1] == ":" {
		return 2
	}
	return 1
}

func isClock(s string) bool {
	if len(s) != 8 || s[2] != ':' || s[5] != ':' {
		return false
	}
	for _, i := range []int{0, 1, 3, 4, 6, 7} {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isNumeric(s string) bool {
	_, err := parseNumber(s)
	return err == nil
}

func percent(s string) (float64, error) {
	v, err := parseNumber(s)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, fmt.Errorf("negative percentage")
	}
	return v, nil
}
