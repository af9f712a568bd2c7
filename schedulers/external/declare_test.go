package external_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/external"
	"github.com/schedlab/schedlab/sim"
)

// TestDeclare: a declared policy is a scheduler name like a built-in one
// (any case), labelled by its display name, built with the cell's seed;
// an undeclared one is an error listing those declared.
func TestDeclare(t *testing.T) {
	cmd := example(t, "fifo_firstfit.py")
	if err := external.Declare([]external.Spec{{Name: "decl-fifo", Command: cmd, Display: "FIFO (Python)"},
		{Name: "decl-oracle", Command: cmd, Oracle: true}}); err != nil {
		t.Fatal(err)
	}
	n, err := schedulers.Canonical("External:Decl-FIFO")
	if err != nil || n != "external:decl-fifo" {
		t.Fatalf("Canonical: %q, %v", n, err)
	}
	if d := schedulers.Display("external:decl-fifo"); d != "FIFO (Python)" {
		t.Errorf("display %q", d)
	}
	if d := schedulers.Display("external:decl-oracle"); d != "decl-oracle (oracle)" {
		t.Errorf("display %q", d)
	}
	_, err = schedulers.Canonical("external:undeclared")
	if !errors.Is(err, schedulers.ErrUnknown) || !strings.Contains(err.Error(), "declares: decl-fifo, decl-oracle") {
		t.Errorf("undeclared: %v", err)
	}
	s, err := schedulers.New(n, schedulers.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer s.(*external.Policy).Close()
	res, err := sim.Run(context.Background(), flat(t, 2), smallJobs(5), s, sim.DefaultConfig(), nil)
	if err != nil || res.Metrics.Jobs != 5 {
		t.Fatalf("run: %v, %+v", err, res)
	}
	rows := external.Rows([]string{"fifo-firstfit", "external:decl-fifo", "EXTERNAL:decl-fifo"})
	if len(rows) != 1 || rows[0].Spec.Name != "decl-fifo" || len(rows[0].Digest) != 64 {
		t.Errorf("rows %+v", rows)
	}
	for _, bad := range [][]external.Spec{
		{{Name: "Bad Name", Command: "x"}},
		{{Name: "ok", Command: ""}},
		{{Name: "ok", Command: "x", TimeoutS: -1}},
		{{Name: "twice", Command: "x"}, {Name: "twice", Command: "y"}},
	} {
		if err := external.Declare(bad); err == nil || !strings.Contains(err.Error(), "external[") {
			t.Errorf("%+v: got %v", bad, err)
		}
	}
}
