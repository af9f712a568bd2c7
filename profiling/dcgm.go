package profiling

import (
	"errors"
	"io"
	"strconv"
	"strings"
)

// Label is one Prometheus label.
type Label struct{ Name, Value string }

// DCGMMetric is one sample line of dcgm-exporter's Prometheus text output.
type DCGMMetric struct {
	Line      int
	Name      string  // e.g. DCGM_FI_PROF_PCIE_TX_BYTES
	Labels    []Label // in file order (gpu, UUID, device, modelName, Hostname, container, namespace, pod, ...)
	Value     float64
	Timestamp int64 // milliseconds since the epoch; 0 when absent
}

// Label returns the named label's value, "" if absent.
func (m DCGMMetric) Label(name string) string {
	for _, l := range m.Labels {
		if l.Name == name {
			return l.Value
		}
	}
	return ""
}

// dcgm-exporter metrics schedlab reads.
const (
	DCGMPCIeTx   = "DCGM_FI_PROF_PCIE_TX_BYTES" // bytes/s, device→host
	DCGMPCIeRx   = "DCGM_FI_PROF_PCIE_RX_BYTES" // bytes/s, host→device
	DCGMGPUUtil  = "DCGM_FI_DEV_GPU_UTIL"       // percent
	dcgmMaxBytes = 1e13                         // 80 Tbit/s: beyond any PCIe link, a corrupt value
)

// ReadDCGM parses Prometheus text exposition format as written by
// dcgm-exporter: "# HELP"/"# TYPE" comments, then lines
// `NAME{label="value",...} VALUE [TIMESTAMP]`. Label values may hold
// escaped \" \\ \n and commas. Every metric is returned, not only DCGM's.
//
// An empty file, or one without a sample, is an error; so is a file cut
// short: its last line without a line feed (the format ends every line
// with one), or a "# TYPE" declaration at its end with no sample after it
// (dcgm-exporter writes each family's samples right after its TYPE line).
func ReadDCGM(r io.Reader, name string) ([]DCGMMetric, error) {
	ls := newLineScanner(r)
	var out []DCGMMetric
	var family string // the metric of the last # TYPE line, until its first sample
	familyLine := 0
	for {
		l, ok := ls.next()
		if !ok {
			break
		}
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "#") {
			if f := strings.Fields(t); len(f) >= 3 && f[1] == "TYPE" {
				family, familyLine = f[2], ls.line
			}
			continue
		}
		if t == "" {
			continue
		}
		m, err := parsePromLine(t)
		if err != nil {
			return nil, parseErr(name, ls.line, m.Name, "%v", err)
		}
		m.Line = ls.line
		family = ""
		switch m.Name {
		case DCGMPCIeTx, DCGMPCIeRx:
			if m.Value < 0 || m.Value > dcgmMaxBytes {
				return nil, parseErr(name, ls.line, m.Name, "implausible PCIe rate %g bytes/s", m.Value)
			}
		case DCGMGPUUtil:
			if m.Value < 0 || m.Value > 100 {
				return nil, parseErr(name, ls.line, m.Name, "utilisation %g outside [0, 100]", m.Value)
			}
		}
		out = append(out, m)
	}
	if err := ls.err(name); err != nil {
		return nil, err
	}
	switch {
	case len(out) == 0:
		return nil, parseErr(name, 0, "", "no samples: empty, or not dcgm-exporter output")
	case !ls.endsInNewline():
		return nil, parseErr(name, ls.line, "", "truncated: the last line has no line end")
	case family != "":
		return nil, parseErr(name, familyLine, family, "truncated: no sample after its # TYPE line")
	}
	return out, nil
}

type promError string

func (e promError) Error() string { return string(e) }

func parsePromLine(s string) (DCGMMetric, error) {
	var m DCGMMetric
	i := 0
	for i < len(s) && (isNameChar(s[i]) || (i > 0 && s[i] >= '0' && s[i] <= '9')) {
		i++
	}
	if i == 0 {
		return m, promError("line does not start with a metric name")
	}
	m.Name = s[:i]
	if i < len(s) && s[i] == '{' {
		i++
		for {
			for i < len(s) && s[i] == ' ' {
				i++
			}
			if i < len(s) && s[i] == '}' {
				i++
				break
			}
			j := i
			for i < len(s) && (isNameChar(s[i]) || (i > j && s[i] >= '0' && s[i] <= '9')) {
				i++
			}
			if i == j || i+1 >= len(s) || s[i] != '=' || s[i+1] != '"' {
				return m, promError("malformed label at column " + strconv.Itoa(i+1))
			}
			ln := s[j:i]
			i += 2
			var v strings.Builder
			closed := false
			for i < len(s) {
				c := s[i]
				if c == '\\' && i+1 < len(s) {
					switch s[i+1] {
					case 'n':
						v.WriteByte('\n')
					default:
						v.WriteByte(s[i+1])
					}
					i += 2
					continue
				}
				if c == '"' {
					closed = true
					i++
					break
				}
				v.WriteByte(c)
				i++
			}
			if !closed {
				return m, promError("unterminated value of label " + ln)
			}
			m.Labels = append(m.Labels, Label{ln, v.String()})
			if i < len(s) && s[i] == ',' {
				i++
			}
		}
	}
	f := strings.Fields(s[i:])
	if len(f) < 1 || len(f) > 2 {
		return m, promError("want a value and an optional timestamp after the labels")
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if errors.Is(err, strconv.ErrRange) {
		return m, promError("value: out of range: " + strconv.Quote(f[0]))
	}
	if err != nil {
		return m, promError("value: not a number: " + strconv.Quote(f[0]))
	}
	if v != v || v > 1e308 || v < -1e308 { // NaN, ±Inf are legal Prometheus but useless here
		return m, promError("value: not finite: " + f[0])
	}
	m.Value = v
	if len(f) == 2 {
		ts, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return m, promError("timestamp: not an integer: " + strconv.Quote(f[1]))
		}
		m.Timestamp = ts
	}
	return m, nil
}

func isNameChar(c byte) bool {
	return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// DCGMReadings converts the PCIe and utilisation metrics to readings; the
// entity is the pod label when set (namespace/pod), else "gpu" + the gpu label.
func DCGMReadings(ms []DCGMMetric, file string) []Reading {
	var out []Reading
	for _, m := range ms {
		var metric, unit string
		v := m.Value
		switch m.Name {
		case DCGMPCIeTx:
			metric, unit, v = MetricPCIeTx, "Gbit/s", v*8/1e9
		case DCGMPCIeRx:
			metric, unit, v = MetricPCIeRx, "Gbit/s", v*8/1e9
		case DCGMGPUUtil:
			metric, unit = MetricGPUUtil, "%"
		default:
			continue
		}
		e := "gpu" + m.Label("gpu")
		if p := m.Label("pod"); p != "" {
			e = p
			if ns := m.Label("namespace"); ns != "" {
				e = ns + "/" + p
			}
		}
		out = append(out, Reading{Source: "dcgm", File: file, Line: int32(m.Line), Entity: e, Metric: metric, Value: v, Unit: unit})
	}
	return out
}
