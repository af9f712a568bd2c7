package datasets

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzGoogleEvents decodes arbitrary bytes as a job_events part: plain
// (mode 0), gzipped (mode 1), or as they are under a .gz name (mode 2, a
// damaged gzip). It drives the part decoder directly, without Parquet, so
// that each input costs microseconds: the Ingest plumbing around it is
// covered by the tests. The decoder must never panic; a file-level failure
// is an *InputError; otherwise every line is read once and either accepted
// or rejected with its line number, and the bins hold exactly the accepted
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
	var d googleDecoder
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		name, content := "p.csv", data
		switch mode % 3 {
		case 1:
			name, content = "p.csv.gz", gzipBytes(t, string(data))
		case 2:
			name = "p.csv.gz"
		}
		var read, accepted, lastLine int64
		var submits, binned int
		var seen googleSeen
		events := map[[3]int64]bool{}
		err := d.decodeFrom(context.Background(), name, bytes.NewReader(content), 1800e6, func(c *googleChunk) error {
			parsed := len(c.rejects)
			seen.dedup(c, nil) // as the writer does
			read += c.read
			accepted += int64(len(c.rows))
			if c.read != int64(len(c.rows)+len(c.rejects)) {
				t.Fatalf("chunk read %d rows, accepted %d, rejected %d", c.read, len(c.rows), len(c.rejects))
			}
			for _, r := range c.rejects[parsed:] { // duplicates, after the parse's rejections
				if r.line <= c.first || r.line > c.first+c.read || !strings.Contains(r.reason, "duplicate") {
					t.Fatalf("duplicate rejection %+v outside lines %d..%d", r, c.first+1, c.first+c.read)
				}
			}
			c.rejects = c.rejects[:parsed]
			for _, e := range c.rows {
				k := [3]int64{e.TimestampUS, e.JobID, int64(e.EventType)}
				if events[k] {
					t.Fatalf("event %v accepted twice", k)
				}
				events[k] = true
				if !utf8.ValidString(e.User) || !utf8.ValidString(e.JobName) || !utf8.ValidString(e.LogicalJobName) ||
					e.JobID < 0 || e.JobID > GoogleMaxJobID || (e.TimestampUS > GoogleMaxTimestampUS && e.TimestampUS != GoogleAfterWindowUS) ||
					(e.MissingInfo != nil && *e.MissingInfo != 0 && *e.MissingInfo != 1) {
					t.Fatalf("implausible event accepted: %+v", e)
				}
			}
			for _, r := range c.rejects {
				if r.line <= lastLine || r.reason == "" {
					t.Fatalf("rejection %+v after line %d", r, lastLine)
				}
				lastLine = r.line
			}
			for _, e := range c.rows {
				if e.EventType == GoogleSubmit && e.TimestampUS >= GoogleWindowStartUS && e.TimestampUS != GoogleAfterWindowUS {
					submits++
				}
			}
			binned += len(c.bins)
			c.reset()
			googleChunks.Put(c)
			return nil
		})
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.File != name {
				t.Fatalf("error %v is not an *InputError for %s", err, name)
			}
			return
		}
		if binned != submits {
			t.Fatalf("%d bins for %d in-window SUBMITs", binned, submits)
		}
		// Mode 2, and a plain file that starts with the gzip magic (which the
		// reader decompresses whatever its name), have no line count to check.
		if mode%3 == 1 || mode%3 == 0 && !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			// Every line is a row read but a blank one (empty, or
			// spaces and tabs), which every reader skips.
			var lines int64
			for _, l := range bytes.SplitAfter(data, []byte{'\n'}) {
				l = bytes.TrimSuffix(bytes.TrimSuffix(l, []byte{'\n'}), []byte{'\r'})
				if len(l) > 0 && !((l[0] == ' ' || l[0] == '\t') && len(bytes.TrimSpace(l)) == 0) {
					lines++
				}
			}
			if read != lines {
				t.Fatalf("read %d rows of %d lines that are not blank", read, lines)
			}
		}
	})
}
