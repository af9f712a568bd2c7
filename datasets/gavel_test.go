package datasets

import (
	"math"
	"testing"
)

func TestPhillyGavelFixture(t *testing.T) {
	got := ingestOK(t, SourcePhillyGavel, "testdata/philly-gavel/vc01.trace")
	// About 1000 s × the V100 throughput (× GPUs) steps each.
	want := []struct {
		id, model string
		submit    float64
		dur       float64
		gpus      int32
	}{
		{"vc01/1", "resnet-18", 0, 48884 / 48.88, 1},
		{"vc01/2", "lm", 12.5, 16710 / (167.1 * 4), 4},
		{"vc01/3", "a3c", 30, 8233 / 8.233, 1},
	}
	if len(got.jobs) != len(want) {
		t.Fatalf("%d jobs", len(got.jobs))
	}
	for i, w := range want {
		j := got.jobs[i]
		if j.JobID != w.id || j.Model != w.model || j.SubmitS != w.submit || math.Abs(j.DurationS-w.dur) > 1e-9*w.dur ||
			len(j.Tasks) != 1 || j.Tasks[0].Instances != w.gpus || j.Tasks[0].GPU != 1 {
			t.Errorf("job %d: %+v, want %+v", i, j, w)
		}
	}
}

func TestGavelModelNames(t *testing.T) {
	for in, want := range map[string]string{
		"ResNet-18 (batch size 64)": "resnet-18", "ResNet-50 (batch size 16)": "resnet-50",
		"Transformer (batch size 128)": "transformer", "LM (batch size 5)": "lm",
		"Recommendation (batch size 8192)": "recommendation", "A3C": "a3c", "CycleGAN": "cyclegan",
	} {
		if got := GavelModel(in); got != want {
			t.Errorf("GavelModel(%q) = %q, want %q", in, got, want)
		}
		if _, ok := gavelV100StepsPerS[in]; !ok {
			t.Errorf("no throughput for %q", in)
		}
	}
}

func TestPhillyGavelMalformed(t *testing.T) {
	good := "A3C\tcmd\t--max-steps\t0\t100\t1.5\t1"
	checkMalformed(t, SourcePhillyGavel, "vc.trace", "", good, []badRow{
		{"unknown type", "GPT-3 (batch size 1)\tcmd\t-n\t1\t100\t1\t1", "job_type", "unknown job type"},
		{"negative arrival", "A3C\tcmd\t-n\t1\t100\t-1\t1", "arrival_time", "negative"},
		{"NaN arrival", "A3C\tcmd\t-n\t1\t100\tNaN\t1", "arrival_time", "not finite"},
		{"fractional steps", "A3C\tcmd\t-n\t1\t10.5\t1\t1", "total_steps", "whole number"},
		{"zero GPUs", "A3C\tcmd\t-n\t1\t100\t1\t0", "scale_factor", "out of range"},
		{"too few fields", "A3C\tcmd\t-n\t1\t100\t1", "", "6 tab-separated fields"},
		{"comma separated", "A3C,cmd,-n,1,100,1,1", "", "1 tab-separated fields"},
	})
}

func TestPhillyGavelNotATrace(t *testing.T) {
	p := writeFile(t, t.TempDir(), "x.trace", "job_id,submission_time,duration,num_gpu\na,1,2,3\n")
	if ie := refusedFile(t, SourcePhillyGavel, p); ie.Line != 1 {
		t.Fatalf("%v, want an InputError for line 1", ie)
	}
}

// TestPhillyGavelReal ingests Gavel's 15 Philly traces: 15,264 lines
// (counted with wc -l; every file ends in a newline), all accepted, every
// job type mapped to a model of sim.Profiles.
func TestPhillyGavelReal(t *testing.T) {
	got, _ := ingestReal(t, SourcePhillyGavel, "philly-gavel")
	if got.rep.Total != (Accounting{Read: 15264, Accepted: 15264}) || len(got.rep.PerFile) != 15 {
		t.Fatalf("accounting %+v over %d files, want 15264 read and accepted over 15", got.rep.Total, len(got.rep.PerFile))
	}
	models := map[string]int{}
	for _, j := range got.jobs {
		models[j.Model]++
		if !(j.DurationS > 0) {
			t.Fatalf("job %+v", j)
		}
	}
	want := map[string]int{"a3c": 537, "cyclegan": 716, "lm": 2766, "recommendation": 2908, "resnet-18": 3268, "resnet-50": 2056, "transformer": 3013}
	for m, n := range want {
		if models[m] != n {
			t.Errorf("model %s: %d jobs, want %d", m, models[m], n)
		}
	}
}

func FuzzPhillyGavel(f *testing.F) {
	f.Add([]byte("ResNet-18 (batch size 64)\tcd %s/x && python3 main.py\t--num_steps\t1\t48884\t0.000000\t1\nA3C\tc\t-n\t0\t1\t1\t8\n"))
	f.Add([]byte("A3C\tc\t-n\t0\t1\t1\t8\nCycleGAN\t\"q\t-n\t0\t1e3\t-0\t2\n\tx\n"))
	fuzzReader(f, SourcePhillyGavel, "vc.trace", ingestGavelFile)
}
