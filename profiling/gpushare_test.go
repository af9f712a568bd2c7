package profiling

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/shareddata"
)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const gavelSmall = `{
 "k80": {
  "('A', 1)": {
   "null": 2.0,
   "('A', 1)": [1.0, 1.0],
   "('B', 1)": [1.5, 0.5],
   "('B', 2)": [0, 0]
  },
  "('B', 1)": {
   "null": 1.0,
   "('A', 1)": [0.5, 1.5],
   "('C', 1)": [0, 0]
  },
  "('C', 1)": {
   "null": 1.0,
   "('B', 1)": [-1, 0.2]
  }
 },
 "p100": {
  "('A', 1)": {"null": 4.0},
  "('B', 1)": {"null": 1.5},
  "('C', 1)": {"null": 3.0}
 },
 "v100": {
  "('A', 1)": {"null": 8.0},
  "('B', 1)": {"null": 2.0},
  "('C', 1)": {"null": 5.0}
 },
 "v100_unconsolidated": {
  "('A', 1)": {"null": 8.0, "('B', 1)": [1, 1]}
 }
}
`

func TestImportGavelAccounting(t *testing.T) {
	r, err := ImportShare(context.Background(), "gavel", []string{writeFile(t, "g.json", gavelSmall)})
	if err != nil {
		t.Fatal(err)
	}
	// 10 standalone rows + 7 pair rows.
	if r.Rows != 17 {
		t.Fatalf("rows %d, want 17", r.Rows)
	}
	if r.Solo != 9 || r.Pairs != 3 || len(r.Quarantined) != 5 {
		t.Fatalf("solo %d pairs %d quarantined %d, want 9, 3, 5: %+v", r.Solo, r.Pairs, len(r.Quarantined), r.Quarantined)
	}
	want := map[string]float64{"k80 A+A": 0.5, "k80 A+B": 0.75, "k80 B+A": 0.5}
	for _, s := range r.Samples {
		k := s.GPU + " " + s.JobType + "+" + s.CoType
		if w, ok := want[k]; !ok || s.Speed != w {
			t.Errorf("sample %s: speed %g, want %g (known %v)", k, s.Speed, w, ok)
		}
		if s.File != "g.json" || s.Line == 0 {
			t.Errorf("sample %s: file %q line %d", k, s.File, s.Line)
		}
	}
	reasons := map[string]int{}
	for _, q := range r.Quarantined {
		reasons[strings.SplitN(q.Reason, " ", 2)[0]]++
		if q.Line == 0 || q.File != "g.json" {
			t.Errorf("quarantined row without file/line: %+v", q)
		}
	}
	if reasons["pair"] != 1 || reasons["co-located"] != 1 || reasons["scale"] != 1 || reasons["not"] != 2 {
		t.Errorf("reasons %v", reasons)
	}
	// The negative throughput's line is the line of its entry.
	for _, q := range r.Quarantined {
		if strings.HasPrefix(q.Reason, "co-located") && q.Line != 16 {
			t.Errorf("negative throughput quarantined at line %d, want 16", q.Line)
		}
	}
}

func TestImportGavelMalformed(t *testing.T) {
	for name, body := range map[string]string{
		"truncated":  `{"k80": {"('A', 1)": {"null": 2.0,`,
		"string":     "{\"k80\": {\"('A', 1)\": {\"null\": \"fast\"}}}",
		"three":      "{\"k80\": {\"('A', 1)\": {\"('B', 1)\": [1, 2, 3]}}}",
		"not object": `[1, 2]`,
		"trailing":   `{} {}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ImportShare(context.Background(), "gavel", []string{writeFile(t, "bad.json", body)})
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File == "" {
				t.Fatalf("want a ParseError naming the file, got %v", err)
			}
		})
	}
}

const lucidSingle = `model,dataset,batchsize,amp,speed,gpu_util,gmem_util,gmem,label
A,D,32,0,100,50,10,2000,0
B,D,32,0,200,80,20,3000,1
C,D,32,0,0,80,20,3000,1
E,D,32,0,10,NaN,20,3000,1
`

const lucidPairs = `,model1,dataset1,gpu_num1,batchsize1,amp1,speed1,model2,dataset2,gpu_num2,batchsize2,amp2,speed2,gpu_util,gmem_util,gmem
0,A,D,1,32,0,0.9,B,D,1,32,0,1.05,60,20,5000
1,A,D,1,32,0,0.9,X,D,1,32,0,0.8,60,20,5000
2,A,D,1,32,0,inf,B,D,1,32,0,0.8,60,20,5000
3,A,D,2,32,0,0.5,B,D,1,32,0,0.8,60,20,5000
4,A,D,1,32,0,0.5,C,D,1,32,0,0.8,60,20,5000
`

func TestImportLucidAccounting(t *testing.T) {
	r, err := ImportShare(context.Background(), "lucid", []string{writeFile(t, "co.csv", lucidPairs), writeFile(t, "single.csv", lucidSingle)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Rows != 9 || r.Solo != 2 || r.Pairs != 1 || len(r.Quarantined) != 6 {
		t.Fatalf("rows %d solo %d pairs %d quarantined %d: %+v", r.Rows, r.Solo, r.Pairs, len(r.Quarantined), r.Quarantined)
	}
	if len(r.Samples) != 2 || r.Samples[0].Speed != 0.9 || r.Samples[1].Speed != 1.05 || r.AboveOne() != 1 {
		t.Fatalf("samples %+v", r.Samples)
	}
	if s := r.Samples[0]; s.JobGPUUtil != 0.5 || s.CoGPUUtil != 0.8 || s.Line != 2 || s.PairID != r.Samples[1].PairID {
		t.Errorf("sample 0: %+v", s)
	}
	fields := map[string]bool{}
	for _, q := range r.Quarantined {
		fields[q.File+":"+q.Field] = true
	}
	for _, f := range []string{"single.csv:speed", "single.csv:gpu_util", "co.csv:model2", "co.csv:speed1", "co.csv:gpu_num1"} {
		if !fields[f] {
			t.Errorf("no quarantined row for %s (have %v)", f, fields)
		}
	}
}

// TestImportLucidBlankLines: whitespace-only lines among the rows are
// blank: the same accounting as without them.
func TestImportLucidBlankLines(t *testing.T) {
	r, err := ImportShare(context.Background(), "lucid", []string{writeFile(t, "co.csv", lucidPairs+"  \n\t\n"), writeFile(t, "single.csv", strings.Replace(lucidSingle, "\n", "\n \n", 2))})
	if err != nil {
		t.Fatal(err)
	}
	if r.Rows != 9 || r.Solo != 2 || r.Pairs != 1 || len(r.Quarantined) != 6 {
		t.Fatalf("rows %d solo %d pairs %d quarantined %d: %+v", r.Rows, r.Solo, r.Pairs, len(r.Quarantined), r.Quarantined)
	}
}

func TestImportLucidBadInput(t *testing.T) {
	single := writeFile(t, "single.csv", lucidSingle)
	for name, body := range map[string]string{
		"missing column": ",model1,dataset1,batchsize1,amp1,speed1,model2,dataset2,gpu_num2,batchsize2,amp2,speed2\n",
		"ragged":         lucidPairs + "5,A,D\n",
		"bad quote":      lucidPairs + "5,\"A,D,1,32,0,0.5,C,D,1,32,0,0.8,60,20,5000\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ImportShare(context.Background(), "lucid", []string{writeFile(t, "co.csv", body), single})
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File == "" || pe.Line == 0 {
				t.Fatalf("want a ParseError naming file and line, got %v", err)
			}
			if name == "missing column" && pe.Field != "gpu_num1" {
				t.Errorf("field %q, want gpu_num1", pe.Field)
			}
		})
	}
}

func TestImportShareRealData(t *testing.T) {
	gavel := shareddata.Path(t, "colocation/gavel_throughputs.json")
	dir := filepath.Dir(gavel)
	ctx := context.Background()
	g, err := ImportShare(ctx, "gavel", []string{gavel})
	if err != nil {
		t.Fatal(err)
	}
	l, err := ImportShare(ctx, "lucid", []string{filepath.Join(dir, "lucid_colocate_info.csv"), filepath.Join(dir, "lucid_single_data.csv")})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Samples) != 2*1091 || l.Rows != 1091+66 {
		t.Errorf("lucid: %d samples from %d rows, want 2182 from 1157 (quarantined %d)", len(l.Samples), l.Rows, len(l.Quarantined))
	}
	if len(g.Samples) < 1000 {
		t.Errorf("gavel: only %d samples", len(g.Samples))
	}
	t.Logf("gavel: %d rows, %d samples (%d above 1), %d quarantined; lucid: %d rows, %d samples (%d above 1), %d quarantined",
		g.Rows, len(g.Samples), g.AboveOne(), len(g.Quarantined), l.Rows, len(l.Samples), l.AboveOne(), len(l.Quarantined))
	p := filepath.Join(t.TempDir(), "s.parquet")
	if err := WriteShareSamples(ctx, p, datasets.FileMeta{Source: ShareSamplesSource}, g.Samples); err != nil {
		t.Fatal(err)
	}
	back, err := ReadShareSamples(ctx, p)
	if err != nil || len(back) != len(g.Samples) || back[7] != g.Samples[7] {
		t.Fatalf("round trip: %v, %d rows", err, len(back))
	}
}

// FuzzParseGavel: any bytes give entries or a located ParseError, never a
// panic, and the samples built from them keep the accounting.
func FuzzParseGavel(f *testing.F) {
	f.Add([]byte(gavelSmall))
	f.Add([]byte(`{"k80": {"('A', 1)": {"null": 1e999, "('A', 1)": [1, 1]}}}`))
	f.Add([]byte(`{"k80": {"('A', 1)": {"null": -1}}, "p100": {}}`))
	f.Add([]byte(`{"k80": {"('A', 1)": {"null": 1, "null": 1000}}}`))
	f.Add([]byte(`{"k80": {"('A', 1)": {"null": 1e-310, "('A', 1)": [1, 1]}}, "p100": {"('A', 1)": {"null": 2}}, "v100": {"('A', 1)": {"null": 3}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := parseGavel(b, "fuzz.json")
		checkErr(t, err)
		if err != nil {
			return
		}
		r := gavelSamples(entries, "fuzz.json")
		if err := r.Check(); err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for i := range r.Samples {
			if bf := datasets.CheckRow(&r.Samples[i]); bf != nil {
				t.Fatalf("sample %s passed with %s %s", r.Samples[i].SampleID, bf.Field, bf.Reason)
			}
			if ids[r.Samples[i].SampleID] {
				t.Fatalf("sample id %s twice", r.Samples[i].SampleID)
			}
			ids[r.Samples[i].SampleID] = true
		}
	})
}

// FuzzImportLucid: the co-location CSV under fuzzing, with the fixed
// standalone table: samples or a located ParseError, accounting kept.
func FuzzImportLucid(f *testing.F) {
	f.Add([]byte(lucidPairs))
	f.Add([]byte(",model1\n"))
	dir := f.TempDir()
	single := filepath.Join(dir, "single.csv")
	if err := os.WriteFile(single, []byte(lucidSingle), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "co.csv")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := importLucid(p, single)
		checkErr(t, err)
		if err == nil {
			if err := r.Check(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// A Gavel key repeated within one object (a second "null" of a job, a
// pair listed twice under it, a GPU twice) is refused with the line and
// the key, where JSON decoders keep the last; a standalone throughput of
// 1e-310 (finite, but no measurement) and a co-located one that makes a
// speed of 1e300 are quarantined naming the field; a minified file (every
// entry on line 1) still gives every sample its own id.
func TestImportGavelHostile(t *testing.T) {
	ctx := context.Background()
	for name, body := range map[string]string{
		"null twice": `{"k80": {"('A', 1)": {"null": 2.0, "null": 2000.0}}}`,
		"pair twice": `{"k80": {"('A', 1)": {"null": 2.0, "('A', 1)": [1, 1], "('A', 1)": [1, 1]}}}`,
		"job twice":  `{"k80": {"('A', 1)": {"null": 2.0}, "('A', 1)": {"null": 2.0}}}`,
		"gpu twice":  `{"k80": {}, "k80": {}}`,
	} {
		_, err := ImportShare(ctx, "gavel", []string{writeFile(t, "g.json", body)})
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "repeated") {
			t.Errorf("%s: %v, want a ParseError saying the key is repeated", name, err)
		}
	}
	tiny := strings.Replace(gavelSmall, `"('A', 1)": {"null": 4.0}`, `"('A', 1)": {"null": 1e-310}`, 1)
	r, err := ImportShare(ctx, "gavel", []string{writeFile(t, "tiny.json", tiny)})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, q := range r.Quarantined {
		if q.Field == "p100.('A', 1).null" && strings.Contains(q.Reason, "outside") {
			found = true
		}
	}
	if !found {
		t.Errorf("1e-310 not quarantined: %+v", r.Quarantined)
	}
	huge := strings.Replace(gavelSmall, `"('B', 1)": [1.5, 0.5]`, `"('B', 1)": [1e300, 0.5]`, 1)
	r, err = ImportShare(ctx, "gavel", []string{writeFile(t, "huge.json", huge)})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Samples {
		if s.Speed > datasets.MaxShareSpeed {
			t.Errorf("sample %s has speed %g", s.SampleID, s.Speed)
		}
	}
	if err := r.Check(); err != nil {
		t.Error(err)
	}
	min := strings.ReplaceAll(gavelSmall, "\n", "")
	r, err = ImportShare(ctx, "gavel", []string{writeFile(t, "min.json", min)})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, s := range r.Samples {
		ids[s.SampleID] = true
	}
	if len(ids) != len(r.Samples) || len(r.Samples) != 3 {
		t.Errorf("minified: %d distinct ids for %d samples, want 3", len(ids), len(r.Samples))
	}
}
