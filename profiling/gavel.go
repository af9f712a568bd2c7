package profiling

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
)

// Gavel's throughput table (stanford-futuredata/gavel,
// scheduler/simulation_throughputs.json):
//
//	{gpu: {"('<type>', <scale factor>)": {"null": solo,
//	       "('<other type>', <scale factor>)": [this job's throughput, the other's], …}}}
//
// Every entry is a row: a "null" entry a standalone row, any other a pair
// row. Only scale-factor-1 pairs on the consolidated GPU keys (k80, p100,
// v100) are measurements of two jobs sharing one GPU; the rest are
// accounted for as quarantined rows with the reason. The table lists each
// pair twice, once under each job ([a, b] and [b, a]); each entry gives the
// sample of its own job (its first value), so no pair is counted twice.

// gavelGPUs are the consolidated GPU keys, each a single-GPU type, in the
// order the derived utilisation uses them.
var gavelGPUs = []string{"k80", "p100", "v100"}

var gavelKey = regexp.MustCompile(`^\('(.+)', (\d+)\)$`)
var batchSize = regexp.MustCompile(`\(batch size (\d+)\)`)

type gavelEntry struct {
	gpu, job, other string // other "" for a solo entry
	line            int64
	solo            float64
	pair            [2]float64
	raw             string
}

// gavelJobKey parses "('ResNet-18 (batch size 16)', 1)".
func gavelJobKey(k string) (typ string, scale int, ok bool) {
	m := gavelKey.FindStringSubmatch(k)
	if m == nil {
		return "", 0, false
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		return "", 0, false
	}
	return m[1], n, true
}

// gavelModel is the model family of a Gavel job type: the type without its
// batch size ("ResNet-18 (batch size 16)" → "ResNet-18").
func gavelModel(typ string) (string, int32) {
	if m := batchSize.FindStringSubmatchIndex(typ); m != nil {
		n, _ := strconv.Atoi(typ[m[2]:m[3]])
		return strings.TrimSpace(typ[:m[0]]), int32(n)
	}
	return typ, 0
}

func importGavel(path string) (*ShareImport, error) {
	data, err := pipeline.ReadInput(path, 0)
	if err != nil {
		return nil, err
	}
	entries, err := parseGavel(data, path)
	if err != nil {
		return nil, err
	}
	return gavelSamples(entries, filepath.Base(path)), nil
}

// parseGavel walks the JSON with a token decoder, so that every entry keeps
// its line; any structural problem is an error naming the line and the key.
func parseGavel(data []byte, path string) ([]gavelEntry, error) {
	nl := newlineIndex(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	lineAt := func() int64 { return lineOf(nl, dec.InputOffset()) }
	bad := func(field, format string, args ...any) error {
		return parseErr(path, int(lineAt()), field, format, args...)
	}
	tok := func(field string) (json.Token, error) {
		t, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, bad(field, "malformed JSON: %v", err)
		}
		return t, nil
	}
	open := func(field string) error {
		t, err := tok(field)
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); !ok || d != '{' {
			return bad(field, "want an object, got %v", t)
		}
		return nil
	}
	// key reads the next key of an object, "" with ok false at its end.
	key := func(field string) (string, bool, error) {
		t, err := tok(field)
		if err != nil {
			return "", false, err
		}
		if d, ok := t.(json.Delim); ok && d == '}' {
			return "", false, nil
		}
		s, ok := t.(string)
		if !ok {
			return "", false, bad(field, "want a key, got %v", t)
		}
		return s, true, nil
	}
	number := func(field string, t json.Token) (float64, error) {
		n, ok := t.(json.Number)
		if !ok {
			return 0, bad(field, "want a number, got %v", t)
		}
		f, err := strconv.ParseFloat(n.String(), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, bad(field, "want a number, got %s", n)
		}
		return f, nil
	}
	// once refuses a key repeated within one object: JSON leaves it to
	// the reader, and taking the last (as encoding/json does) would hide
	// a measurement.
	once := func(seen map[string]int64, field, k string) error {
		if at, dup := seen[k]; dup {
			return bad(field, "key %q repeated (first at line %d)", truncateKey(k), at)
		}
		seen[k] = lineAt()
		return nil
	}
	// members calls each with every key of the object being read, in
	// order, and leaves the decoder after the object's end; field names
	// the object in errors. A repeated key is refused (once).
	members := func(field string, each func(k string) error) error {
		seen := map[string]int64{}
		for {
			k, more, err := key(field)
			if err != nil {
				return err
			}
			if !more {
				return nil
			}
			if err := once(seen, field, k); err != nil {
				return err
			}
			if err := each(k); err != nil {
				return err
			}
		}
	}
	var out []gavelEntry
	if err := open("(top level)"); err != nil {
		return nil, err
	}
	err := members("gpu", func(gpu string) error {
		if err := open(gpu); err != nil {
			return err
		}
		return members(gpu, func(job string) error {
			field := gpu + "." + job
			if err := open(field); err != nil {
				return err
			}
			return members(field, func(other string) error {
				line := lineAt()
				f := field + "." + other
				t, err := tok(f)
				if err != nil {
					return err
				}
				e := gavelEntry{gpu: gpu, job: job, line: line}
				if other == "null" {
					v, err := number(f, t)
					if err != nil {
						return err
					}
					e.solo, e.raw = v, fmt.Sprintf("%s %s: %v", gpu, job, t)
				} else {
					if d, ok := t.(json.Delim); !ok || d != '[' {
						return bad(f, "want [this job's throughput, the other's], got %v", t)
					}
					e.other = other
					for k := 0; ; k++ {
						t, err := tok(f)
						if err != nil {
							return err
						}
						if d, ok := t.(json.Delim); ok && d == ']' {
							if k != 2 {
								return bad(f, "want 2 throughputs, got %d", k)
							}
							break
						}
						if k >= 2 {
							return bad(f, "want 2 throughputs, got more")
						}
						if e.pair[k], err = number(fmt.Sprintf("%s[%d]", f, k), t); err != nil {
							return err
						}
					}
					e.raw = fmt.Sprintf("%s %s + %s: [%g, %g]", gpu, job, other, e.pair[0], e.pair[1])
				}
				out = append(out, e)
				return nil
			})
		})
	})
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, bad("(top level)", "trailing data after the top-level object")
	}
	return out, nil
}

// GavelUtilisation derives a job type's standalone GPU utilisation on each
// GPU type from its standalone throughputs on K80, P100 and V100, since
// Gavel records no utilisation: by Amdahl's law a job whose step is a
// fraction f GPU-bound on a K80 runs r_g = 1/((1−f) + f/F_g) times faster
// on a GPU F_g times faster. F_g is the largest speed-up of any job type on
// that GPU (the most GPU-bound type is taken as fully GPU-bound, so F_g
// comes from the data, not a datasheet); f is the mean of the estimates
// (1 − 1/r_g)/(1 − 1/F_g) over P100 and V100, clamped to [0, 1]; the
// utilisation on GPU g is then its busy fraction (f/F_g)/((1−f) + f/F_g).
// solo maps type → [k80, p100, v100] throughputs (0 where absent); types
// missing any are left out.
func GavelUtilisation(solo map[string][3]float64) map[string][3]float64 {
	var fmax [3]float64
	fmax[0] = 1
	types := make([]string, 0, len(solo))
	for t, s := range solo {
		if s[0] > 0 && s[1] > 0 && s[2] > 0 {
			types = append(types, t)
		}
	}
	sort.Strings(types)
	for _, t := range types {
		s := solo[t]
		for g := 1; g < 3; g++ {
			fmax[g] = math.Max(fmax[g], s[g]/s[0])
		}
	}
	out := make(map[string][3]float64, len(types))
	for _, t := range types {
		s := solo[t]
		f, n := 0.0, 0
		for g := 1; g < 3; g++ {
			if fmax[g] > 1 {
				f += (1 - s[0]/s[g]) / (1 - 1/fmax[g])
				n++
			}
		}
		if n > 0 {
			f /= float64(n)
		}
		f = math.Min(math.Max(f, 0), 1)
		var u [3]float64
		for g := range 3 {
			u[g] = (f / fmax[g]) / ((1 - f) + f/fmax[g])
		}
		out[t] = u
	}
	return out
}

func gavelSamples(entries []gavelEntry, file string) *ShareImport {
	r := &ShareImport{Rows: int64(len(entries))}
	src := ShareSourceGavel
	// Standalone rows first: every pair names two of them.
	solo := map[string][3]float64{}
	soloLine := map[string]map[string]int64{}
	for _, e := range entries {
		if e.other != "" {
			continue
		}
		g := slices.Index(gavelGPUs, e.gpu)
		typ, scale, ok := gavelJobKey(e.job)
		switch {
		case !ok:
			r.reject(src, file, e.line, e.gpu+"."+e.job, "job key is not ('<type>', <scale factor>)", e.raw)
		case g < 0:
			r.reject(src, file, e.line, e.gpu, "not a single-GPU measurement (unconsolidated placement); unused", e.raw)
		case scale != 1:
			r.reject(src, file, e.line, e.gpu+"."+e.job, fmt.Sprintf("scale factor %d: a multi-GPU job; unused", scale), e.raw)
		default:
			if err := positiveFinite(e.solo); err != nil {
				r.reject(src, file, e.line, e.gpu+"."+e.job+".null", "standalone throughput: "+err.Error(), e.raw)
				continue
			}
			if bf := datasets.CheckValue("solo", e.solo); bf != nil {
				r.reject(src, file, e.line, e.gpu+"."+e.job+".null", "standalone throughput: "+bf.Reason, e.raw)
				continue
			}
			if _, dup := soloLine[e.gpu][typ]; dup {
				r.reject(src, file, e.line, e.gpu+"."+e.job+".null", fmt.Sprintf("a second standalone throughput of %s on %s (first at line %d)", typ, e.gpu, soloLine[e.gpu][typ]), e.raw)
				continue
			}
			s := solo[typ]
			s[g] = e.solo
			solo[typ] = s
			if soloLine[e.gpu] == nil {
				soloLine[e.gpu] = map[string]int64{}
			}
			soloLine[e.gpu][typ] = e.line
			r.Solo++
		}
	}
	util := GavelUtilisation(solo)
	profile := map[[2]string]*JobProfile{}
	for g, gpu := range gavelGPUs {
		types := make([]string, 0, len(soloLine[gpu]))
		for t := range soloLine[gpu] {
			types = append(types, t)
		}
		sort.Strings(types)
		for _, t := range types {
			u, ok := util[t]
			if !ok {
				continue // no utilisation: its pairs are quarantined below
			}
			model, bs := gavelModel(t)
			p := &JobProfile{Source: src, GPU: gpu, Type: t, Model: model, Config: t, BatchSize: bs, Solo: solo[t][g],
				GPUUtil: u[g], UtilBasis: UtilAmdahl, File: file, Line: soloLine[gpu][t]}
			profile[[2]string{gpu, t}] = p
			r.Profiles = append(r.Profiles, *p)
		}
	}
	for _, e := range entries {
		if e.other == "" {
			continue
		}
		field := e.gpu + "." + e.job + "." + e.other
		a, sa, oka := gavelJobKey(e.job)
		b, sb, okb := gavelJobKey(e.other)
		switch {
		case !oka || !okb:
			r.reject(src, file, e.line, field, "job key is not ('<type>', <scale factor>)", e.raw)
			continue
		case !slices.Contains(gavelGPUs, e.gpu):
			r.reject(src, file, e.line, e.gpu, "not a single-GPU measurement (unconsolidated placement); unused", e.raw)
			continue
		case sa != 1 || sb != 1:
			r.reject(src, file, e.line, field, fmt.Sprintf("scale factors %d and %d: only scale-factor-1 pairs are measurements", sa, sb), e.raw)
			continue
		case e.pair[0] == 0 && e.pair[1] == 0:
			r.reject(src, file, e.line, field, "pair not run ([0, 0])", e.raw)
			continue
		}
		if err := positiveFinite(e.pair[0]); err != nil {
			r.reject(src, file, e.line, field+"[0]", "co-located throughput: "+err.Error(), e.raw)
			continue
		}
		if err := positiveFinite(e.pair[1]); err != nil {
			r.reject(src, file, e.line, field+"[1]", "co-located throughput: "+err.Error(), e.raw)
			continue
		}
		pa, pb := profile[[2]string{e.gpu, a}], profile[[2]string{e.gpu, b}]
		if pa == nil || pb == nil {
			missing := a
			if pa != nil {
				missing = b
			}
			reason := fmt.Sprintf("no standalone profile of %q on %s (no valid standalone row, or no standalone throughput on every GPU type to derive its utilisation)", missing, e.gpu)
			r.reject(src, file, e.line, field, reason, e.raw)
			continue
		}
		// One entry, one sample: its own job's. The twin entry under the
		// other job gives the other's; both are rows of the table, so the
		// pair is recorded as two accepted rows of one sample each.
		r.addOne(src, file, e.line, e.gpu, pa, pb, e.pair[0]/pa.Solo, e.raw)
	}
	return r
}

// newlineIndex lists the offsets of the newlines of data.
func newlineIndex(data []byte) []int64 {
	var nl []int64
	for i, c := range data {
		if c == '\n' {
			nl = append(nl, int64(i))
		}
	}
	return nl
}

// lineOf is the 1-based line of byte offset off, skipping the whitespace a
// token decoder has consumed but not yet reported (so that the line is the
// next token's).
func lineOf(nl []int64, off int64) int64 {
	return int64(sort.Search(len(nl), func(i int) bool { return nl[i] >= off })) + 1
}

// truncateKey shortens a key for a message.
func truncateKey(k string) string {
	if len(k) > 80 {
		return k[:80] + "…"
	}
	return k
}
