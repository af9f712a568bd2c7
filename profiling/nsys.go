package profiling

import (
	"encoding/csv"
	"errors"
	"io"
	"strings"
)

// Memory-transfer directions of NsysMemRow.
const (
	HostToDevice   = "HtoD"
	DeviceToHost   = "DtoH"
	DeviceToDevice = "DtoD"
	Memset         = "memset"
	OtherTransfer  = "other"
)

// NsysMemRow is one row of the `nsys stats --report cuda_gpu_mem_size_sum
// --format csv` report (older nsys: gpumemsizesum).
type NsysMemRow struct {
	Line      int
	Operation string  // as printed, e.g. "[CUDA memcpy Host-to-Device]"
	Direction string  // HostToDevice, DeviceToHost, DeviceToDevice, Memset or OtherTransfer
	TotalMB   float64 // total size moved, MB (10⁶ bytes)
	Count     int64   // operations
}

// ReadNsysMem parses the CSV of nsys's memory-size summary. Columns are
// found by header name: "Total (MB)" (or "Total (KB)"/"Total (B)"/"Total
// (GB)" or the MiB/KiB forms, converted), "Count" (older: "Operations"),
// "Operation". Numbers may be quoted and carry thousands separators.
// Operation labels of both nsys generations are recognised: "[CUDA memcpy
// HtoD]" and "[CUDA memcpy Host-to-Device]", and so on. Lines before the
// header (nsys prints notices there) are skipped.
func ReadNsysMem(r io.Reader, name string) ([]NsysMemRow, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	total, count, op := -1, -1, -1
	scale := 1.0
	var out []NsysMemRow
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line, err = pe.Line, pe.Err
			}
			return nil, parseErr(name, line, "", "csv: %v", err)
		}
		if blankRecord(rec) {
			continue // a whitespace-only line
		}
		line, _ := cr.FieldPos(0)
		if op < 0 {
			for i, h := range rec {
				h = strings.TrimSpace(h)
				switch {
				case h == "Operation":
					op = i
				case h == "Count" || h == "Operations":
					count = i
				case strings.HasPrefix(h, "Total"):
					s, ok := sizeUnit(h)
					if !ok {
						return nil, parseErr(name, line, h, "unknown size unit")
					}
					total, scale = i, s
				}
			}
			if op < 0 {
				total, count = -1, -1
				continue // a notice line before the header
			}
			if total < 0 {
				return nil, parseErr(name, line, "Total", "header has Operation but no Total column: not a memory-size report")
			}
			continue
		}
		if len(rec) <= max(op, total, count) {
			return nil, parseErr(name, line, "", "%d fields, need %d", len(rec), max(op, total, count)+1)
		}
		v, err := parseThousands(rec[total])
		if err != nil {
			return nil, parseErr(name, line, "Total", "%v", err)
		}
		if v < 0 {
			return nil, parseErr(name, line, "Total", "negative size %g", v)
		}
		row := NsysMemRow{Line: line, Operation: strings.TrimSpace(rec[op]), TotalMB: v * scale}
		row.Direction = direction(row.Operation)
		if count >= 0 {
			c, err := parseThousands(rec[count])
			if err != nil || c < 0 || c != float64(int64(c)) {
				return nil, parseErr(name, line, "Count", "not a count: %q", rec[count])
			}
			row.Count = int64(c)
		}
		out = append(out, row)
	}
	if op < 0 {
		return nil, parseErr(name, 0, "", "no header with an Operation column: not an nsys memory-size report")
	}
	return out, nil
}

func sizeUnit(h string) (float64, bool) {
	_, u, ok := strings.Cut(h, "(")
	if !ok {
		return 1e-3, true // old nsys: "Total" in KB
	}
	switch strings.TrimSuffix(strings.TrimSpace(u), ")") {
	case "B":
		return 1e-6, true
	case "KB":
		return 1e-3, true
	case "MB":
		return 1, true
	case "GB":
		return 1e3, true
	case "KiB":
		return 1024e-6, true
	case "MiB":
		return 1048576e-6, true
	case "GiB":
		return 1073741824e-6, true
	}
	return 0, false
}

func parseThousands(s string) (float64, error) {
	s = strings.ReplaceAll(strings.TrimSpace(s), ",", "")
	return parseNumber(s)
}

func direction(op string) string {
	o := strings.ToLower(op)
	switch {
	case strings.Contains(o, "memset"):
		return Memset
	case strings.Contains(o, "htod") || strings.Contains(o, "host-to-device"):
		return HostToDevice
	case strings.Contains(o, "dtoh") || strings.Contains(o, "device-to-host"):
		return DeviceToHost
	case strings.Contains(o, "dtod") || strings.Contains(o, "device-to-device"):
		return DeviceToDevice
	}
	return OtherTransfer
}

// NsysReadings gives the host↔device bytes of a report (other directions
// do not cross PCIe to the host and are skipped). The entity is the file.
func NsysReadings(rows []NsysMemRow, file string) []Reading {
	var out []Reading
	for _, r := range rows {
		var m string
		switch r.Direction {
		case HostToDevice:
			m = MetricPCIeHtoD
		case DeviceToHost:
			m = MetricPCIeDtoH
		default:
			continue
		}
		out = append(out, Reading{Source: "nsys", File: file, Line: int32(r.Line), Entity: file, Metric: m, Value: r.TotalMB * 1e6, Unit: "bytes"})
	}
	return out
}
