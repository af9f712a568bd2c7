package profiling

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
)

// Lucid's co-location tables (S-Lab-System-Group/Lucid,
// simulation/data/colocate_info.csv and simulation/analyzer/single_data.csv),
// measured on one RTX 3090:
//
//	COLOCATE: [index],model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,…,speed2,gpu_util,gmem_util,gmem
//	SINGLE:   model,dataset,batchsize,amp,speed,gpu_util,gmem_util,gmem,label
//
// speed1/speed2 are already normalised by the job's standalone speed; the
// pair's own gpu_util/gmem are measurements of the pair, not standalone
// profiles, and are not used. A job is (model, dataset, batch size, amp);
// its standalone profile is its SINGLE row.

// LucidGPU is the GPU type of Lucid's measurements.
const LucidGPU = "rtx3090"

var (
	lucidPairCols   = []string{"model1", "dataset1", "gpu_num1", "batchsize1", "amp1", "speed1", "model2", "dataset2", "gpu_num2", "batchsize2", "amp2", "speed2"}
	lucidSingleCols = []string{"model", "dataset", "batchsize", "amp", "speed", "gpu_util", "gmem_util", "gmem"}
)

// csvTable reads a whole CSV with a header, mapping the wanted columns;
// a missing column or a malformed line is an error naming file, line and
// field.
type csvTable struct {
	path, file string
	col        map[string]int
	rows       [][]string
	lines      []int64
}

func readCSVTable(path string, want []string) (*csvTable, error) {
	f, err := pipeline.OpenInput(path, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.ReuseRecord = false
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, parseErr(path, 1, "", "empty file: want a header")
		}
		return nil, csvErr(path, err)
	}
	t := &csvTable{path: path, file: filepath.Base(path), col: map[string]int{}}
	for i, h := range head {
		t.col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	for _, c := range want {
		if _, ok := t.col[c]; !ok {
			return nil, parseErr(path, 1, c, "missing column (header has %v)", head)
		}
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if blankRecord(rec) {
			continue // a whitespace-only line, blank like the empty ones csv skips
		}
		if err != nil {
			return nil, csvErr(path, err)
		}
		line, _ := cr.FieldPos(0)
		t.rows = append(t.rows, rec)
		t.lines = append(t.lines, int64(line))
	}
	return t, nil
}

// blankRecord reports whether a CSV record is a whitespace-only line:
// encoding/csv skips empty lines itself but reads " " as one field (and,
// where the field count is fixed, returns it with ErrFieldCount).
func blankRecord(rec []string) bool {
	return len(rec) == 1 && strings.TrimSpace(rec[0]) == ""
}

func csvErr(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return parseErr(path, pe.Line, fmt.Sprintf("column %d", pe.Column), "malformed CSV: %v", pe.Err)
	}
	return parseErr(path, 0, "", "malformed CSV: %v", err)
}

func (t *csvTable) get(i int, c string) string { return strings.TrimSpace(t.rows[i][t.col[c]]) }

// num parses column c of row i as a finite number.
func (t *csvTable) num(i int, c string) (float64, error) {
	s := t.get(i, c)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%s: not a number: %q", c, s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s: not finite (%s)", c, s)
	}
	return v, nil
}

func (t *csvTable) raw(i int) string { return strings.Join(t.rows[i], ",") }

// lucidConfig is a Lucid job's identity: model/dataset/bs<N>/amp<0|1>.
func lucidConfig(model, dataset, bs, amp string) string {
	return model + "/" + dataset + "/bs" + bs + "/amp" + amp
}

func importLucid(pairPath, singlePath string) (*ShareImport, error) {
	single, err := readCSVTable(singlePath, lucidSingleCols)
	if err != nil {
		return nil, err
	}
	pairs, err := readCSVTable(pairPath, lucidPairCols)
	if err != nil {
		return nil, err
	}
	r := &ShareImport{Rows: int64(len(single.rows) + len(pairs.rows))}
	src := ShareSourceLucid
	profile := map[string]*JobProfile{}
	for i := range single.rows {
		line, raw := single.lines[i], single.raw(i)
		fail := func(field, reason string) { r.reject(src, single.file, line, field, reason, raw) }
		model, dataset, bs, amp := single.get(i, "model"), single.get(i, "dataset"), single.get(i, "batchsize"), single.get(i, "amp")
		b, err := strconv.ParseInt(bs, 10, 32)
		if err != nil || b <= 0 {
			fail("batchsize", fmt.Sprintf("want a positive integer, got %q", bs))
			continue
		}
		if model == "" {
			fail("model", "empty")
			continue
		}
		var v [4]float64
		ok := true
		for k, c := range []string{"speed", "gpu_util", "gmem_util", "gmem"} {
			if v[k], err = single.num(i, c); err != nil {
				fail(c, err.Error())
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if err := positiveFinite(v[0]); err != nil {
			fail("speed", "standalone speed: "+err.Error())
			continue
		}
		if bf := datasets.CheckValue("solo", v[0]); bf != nil {
			fail("speed", "standalone speed: "+bf.Reason)
			continue
		}
		if v[1] < 0 || v[1] > 100 {
			fail("gpu_util", fmt.Sprintf("want a percentage in [0, 100], got %g", v[1]))
			continue
		}
		if v[3] < 0 {
			fail("gmem", fmt.Sprintf("want MiB ≥ 0, got %g", v[3]))
			continue
		}
		key := lucidConfig(model, dataset, bs, amp)
		if p, dup := profile[key]; dup {
			fail("model", fmt.Sprintf("duplicate standalone row of %s (first at line %d)", key, p.Line))
			continue
		}
		gmem := v[3]
		p := &JobProfile{Source: src, GPU: LucidGPU, Type: model, Model: model, Config: key, BatchSize: int32(b), Solo: v[0],
			GPUUtil: v[1] / 100, GMemMiB: &gmem, UtilBasis: UtilMeasured, File: single.file, Line: line}
		profile[key] = p
		r.Profiles = append(r.Profiles, *p)
		r.Solo++
	}
	for i := range pairs.rows {
		line, raw := pairs.lines[i], pairs.raw(i)
		fail := func(field, reason string) { r.reject(src, pairs.file, line, field, reason, raw) }
		var jp [2]*JobProfile
		var speed [2]float64
		ok := true
		for k, n := range []string{"1", "2"} {
			if g := pairs.get(i, "gpu_num"+n); g != "1" {
				fail("gpu_num"+n, fmt.Sprintf("a job on %s GPUs: not a one-GPU share", g))
				ok = false
				break
			}
			s, err := pairs.num(i, "speed"+n)
			if err == nil {
				err = positiveFinite(s)
				if err != nil {
					err = fmt.Errorf("speed%s: co-located speed: %v", n, err)
				}
			}
			if err != nil {
				fail("speed"+n, err.Error())
				ok = false
				break
			}
			key := lucidConfig(pairs.get(i, "model"+n), pairs.get(i, "dataset"+n), pairs.get(i, "batchsize"+n), pairs.get(i, "amp"+n))
			p := profile[key]
			if p == nil {
				fail("model"+n, fmt.Sprintf("no standalone row of %s in %s", key, single.file))
				ok = false
				break
			}
			jp[k], speed[k] = p, s
		}
		if ok {
			r.addPair(src, pairs.file, line, LucidGPU, jp[0], jp[1], speed[0], speed[1], raw)
		}
	}
	return r, nil
}
