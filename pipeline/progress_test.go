package pipeline

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestProgressLogsWithoutTerminal(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(nil, slog.New(slog.NewTextHandler(&buf, nil)), time.Nanosecond)
	b := p.Start("ingest: rows", 10)
	for i := 0; i < 10; i++ {
		time.Sleep(time.Microsecond)
		b.Add(1)
	}
	b.Done()
	out := buf.String()
	for _, want := range []string{"msg=progress", `task="ingest: rows"`, "total=10", "percent=100", "msg=done"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

func TestProgressDrawsOnTerminal(t *testing.T) {
	var term bytes.Buffer
	p := NewProgress(&term, nil, 0)
	b := p.Start("train", 4)
	b.Add(2)
	b.Done()
	out := term.String()
	if !strings.Contains(out, "\rtrain [") || !strings.HasSuffix(out, "\n") {
		t.Fatalf("terminal output %q", out)
	}
	var nilBar *Bar
	nilBar.Add(1) // a nil bar reports nothing and does not crash
	nilBar.Done()
}
