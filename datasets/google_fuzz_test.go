package datasets

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzGoogleEvents ingests arbitrary bytes as a job_events part: plain
// (mode 0), gzipped (mode 1), or as they are under a .gz name (mode 2, a
// damaged gzip). It must never panic; a file-level failure is an
// *InputError; otherwise every line is read once and either accepted into
// job_events or quarantined, and arrivals count exactly the accepted
// in-window SUBMITs.
func FuzzGoogleEvents(f *testing.F) {
	for _, p := range []string{"testdata/google/part-00000-of-00002.csv", "testdata/google/part-00001-of-00002.csv.gz"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0))
		f.Add(b, uint8(1))
		f.Add(b, uint8(2))
	}
	f.Add([]byte("600000000,,1,0,u,1,n,l\r\n1,x,2\n\n-1,,2,0,u,1,n,l"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		dir := t.TempDir()
		name, content := "p.csv", data
		switch mode % 3 {
		case 1:
			name, content = "p.csv.gz", gzipBytes(t, string(data))
		case 2:
			name = "p.csv.gz"
		}
		in := filepath.Join(dir, name)
		if err := os.WriteFile(in, content, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out")
		rep, err := Google2011Reader{Workers: 2}.Ingest(context.Background(), Request{Inputs: []string{in}, OutDir: out})
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *InputError", err)
			}
			return
		}
		if err := rep.Total.Check(); err != nil {
			t.Fatal(err)
		}
		// Mode 2, and a plain file that starts with the gzip magic (which the
		// reader decompresses whatever its name), have no line count to check.
		if mode%3 == 1 || mode%3 == 0 && !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			lines := int64(bytes.Count(data, []byte{'\n'}))
			if len(data) > 0 && data[len(data)-1] != '\n' {
				lines++
			}
			if rep.Total.Read != lines {
				t.Fatalf("read %d rows of %d lines", rep.Total.Read, lines)
			}
		}
		ev, err := ReadParquet[GoogleJobEvent](filepath.Join(out, JobEventsFile))
		if err != nil || int64(len(ev)) != rep.Total.Accepted {
			t.Fatalf("job_events: %d rows (%v), accepted %d", len(ev), err, rep.Total.Accepted)
		}
		q, err := ReadParquet[Rejected](filepath.Join(out, QuarantineFile))
		if err != nil || int64(len(q)) != rep.Total.Quarantined {
			t.Fatalf("quarantine: %d rows (%v), quarantined %d", len(q), err, rep.Total.Quarantined)
		}
		var submits int64
		for _, e := range ev {
			if e.EventType == GoogleSubmit && e.TimestampUS >= GoogleWindowStartUS && e.TimestampUS != math.MaxInt64 {
				submits++
			}
		}
		var binned int64
		for _, a := range readArrivals(t, out) {
			binned += a.Jobs
		}
		if binned != submits {
			t.Fatalf("arrivals hold %d jobs, job_events %d in-window SUBMITs", binned, submits)
		}
	})
}
