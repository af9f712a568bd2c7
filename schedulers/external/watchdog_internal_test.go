package external

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/pythontest"
)

// TestWatchdog checks the timer that exchanges do not touch: it must not
// kill a child that answered in time, however long schedlab then takes
// before the next message (the timer fires while no exchange is under
// way), and must kill one that does not answer within the timeout,
// including the first decide after a handshake with a longer timeout.
func TestWatchdog(t *testing.T) {
	t.Parallel()
	py := pythontest.Interpreter(t)
	script := `import sys, time
for line in sys.stdin:
    if '"hello"' in line:
        print('{"type":"hello","protocol":2,"seq":0,"name":"w"}', flush=True)
        continue
    if '"hang"' in line:
        time.sleep(30)
    seq = int(line.split('"seq":')[1].split(',')[0])
    print('{"type":"decisions","seq":%d,"decisions":[]}' % seq, flush=True)
`
	const timeout = 200 * time.Millisecond
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "w.py")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := New(ctx, Config{Name: "w", Command: py + " " + file, Timeout: timeout, StartTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ask := func(kind string) error {
		p.seq++
		_, err := p.exchange(ctx, fmt.Appendf(nil, `{"type":"decide","seq":%d,%q:1}`+"\n", p.seq, kind), timeout)
		return err
	}
	for i, pause := range []time.Duration{0, 3 * timeout / 2, timeout / 2} {
		time.Sleep(pause)
		if err := ask("quick"); err != nil {
			t.Fatalf("message %d, after a pause of %v: %v", i+1, pause, err)
		}
	}
	start := time.Now()
	err = ask("hang")
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("a hang: %v, want %v", err, ErrTimeout)
	}
	if d := time.Since(start); d < timeout || d > timeout+2*time.Second {
		t.Errorf("a hang ended after %v, want about %v", d, timeout)
	}
}
