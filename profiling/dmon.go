package profiling

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// DmonRow is one row of `nvidia-smi dmon` output. Columns are found by
// their header names, so any -s selection and -o D/T prefix works; a "-"
// (not supported or not sampled) is NaN.
type DmonRow struct {
	Line int
	Date string // from -o D (YYYYMMDD), "" when absent
	Time string // from -o T (HH:MM:SS), "" when absent
	GPU  int    // the "gpu" (Idx) column
	// Values by header name (sm, mem, pwr, rxpci, txpci, ...), in the
	// file's units (header's second line; rxpci/txpci in MB/s).
	Values map[string]float64
}

// PCIeGbps returns host→device and device→host traffic in Gbit/s from the
// rxpci/txpci columns (MB/s, MB = 10⁶ bytes); NaN when missing.
func (r DmonRow) PCIeGbps() (rx, tx float64) {
	return mbps(r.Values, "rxpci"), mbps(r.Values, "txpci")
}

func mbps(v map[string]float64, k string) float64 {
	x, ok := v[k]
	if !ok {
		return math.NaN()
	}
	return x * 8e6 / 1e9
}

// ReadDmon parses nvidia-smi dmon output. name is used in errors.
//
// Format: header lines start with '#': the first names the columns
// ("# gpu pwr gtemp ... rxpci txpci", with "Date Time" first under -o DT),
// the second gives units ("# Idx W C ... MB/s MB/s"). dmon repeats the
// header every screenful; a repeated header must match the first.
func ReadDmon(r io.Reader, name string) ([]DmonRow, error) {
	ls := newLineScanner(r)
	var cols []string
	var out []DmonRow
	for {
		l, ok := ls.next()
		if !ok {
			break
		}
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "#") {
			f := strings.Fields(strings.ToLower(strings.TrimPrefix(t, "#")))
			if len(f) == 0 {
				continue
			}
			if f[0] == "gpu" || f[0] == "date" || f[0] == "time" {
				if cols != nil && strings.Join(cols, " ") != strings.Join(f, " ") {
					return nil, parseErr(name, ls.line, "", "header changed from %q to %q", strings.Join(cols, " "), strings.Join(f, " "))
				}
				cols = f
			}
			continue // the units line, or a comment
		}
		if cols == nil {
			return nil, parseErr(name, ls.line, "", "data before the '# gpu ...' header line")
		}
		f := strings.Fields(t)
		if len(f) != len(cols) {
			return nil, parseErr(name, ls.line, "", "%d fields, header has %d (%s)", len(f), len(cols), strings.Join(cols, " "))
		}
		row := DmonRow{Line: ls.line, GPU: -1, Values: make(map[string]float64, len(cols))}
		for i, c := range cols {
			switch c {
			case "date":
				row.Date = f[i]
			case "time":
				row.Time = f[i]
			case "gpu":
				g, err := strconv.Atoi(f[i])
				if err != nil || g < 0 {
					return nil, parseErr(name, ls.line, "gpu", "not a GPU index: %q", f[i])
				}
				row.GPU = g
			default:
				if f[i] == "-" {
					row.Values[c] = math.NaN()
					continue
				}
				v, err := parseNumber(f[i])
				if err != nil {
					return nil, parseErr(name, ls.line, c, "%v", err)
				}
				if v < 0 {
					return nil, parseErr(name, ls.line, c, "negative value %g", v)
				}
				row.Values[c] = v
			}
		}
		if row.GPU < 0 {
			return nil, parseErr(name, ls.line, "gpu", "no gpu column in header")
		}
		out = append(out, row)
	}
	if err := ls.err(name); err != nil {
		return nil, err
	}
	if cols == nil {
		return nil, parseErr(name, 0, "", "no '# gpu ...' header: not nvidia-smi dmon output")
	}
	return out, nil
}

// DmonReadings turns dmon rows into PCIe and SM readings (NaN cells skipped).
func DmonReadings(rows []DmonRow, file string) []Reading {
	var out []Reading
	for _, r := range rows {
		e := fmt.Sprintf("gpu%d", r.GPU)
		rx, tx := r.PCIeGbps()
		if !math.IsNaN(rx) {
			out = append(out, Reading{Source: "dmon", File: file, Line: int32(r.Line), Entity: e, Metric: MetricPCIeRx, Value: rx, Unit: "Gbit/s"})
		}
		if !math.IsNaN(tx) {
			out = append(out, Reading{Source: "dmon", File: file, Line: int32(r.Line), Entity: e, Metric: MetricPCIeTx, Value: tx, Unit: "Gbit/s"})
		}
		if sm, ok := r.Values["sm"]; ok && !math.IsNaN(sm) {
			out = append(out, Reading{Source: "dmon", File: file, Line: int32(r.Line), Entity: e, Metric: MetricGPUUtil, Value: sm, Unit: "%"})
		}
	}
	return out
}
