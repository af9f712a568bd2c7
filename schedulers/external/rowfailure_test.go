package external_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/schedulers/external"
)

// TestOnError: a declared policy that exits mid-run stops its row (on_error:
// row: the run finishes, the row has no cells, the table's notes carry the
// error) or the whole run (on_error: run, the default: the error names the
// cell and the policy).
func TestOnError(t *testing.T) {
	misbehaving := misbehave(t)
	spec, err := evaluation.DefaultSpec(evaluation.DASTable1)
	if err != nil {
		t.Fatal(err)
	}
	spec.Clusters = spec.Clusters[:1]
	spec.Workloads[0].SyntheticJobs = 60
	spec.Workloads[0].MaxJobs = 60
	spec.Workloads[0].TestFraction = 0.5
	spec.Seeds = 2
	for _, onError := range []string{external.OnErrorRow, ""} {
		name := "exits-" + strings.Trim(onError, " ")
		if onError == "" {
			name = "exits-default"
		}
		if err := external.Declare([]external.Spec{{Name: name, Command: misbehaving("exit"), OnError: onError}}); err != nil {
			t.Fatal(err)
		}
		spec.Schedulers = []string{"fifo-firstfit", "external:" + name}
		rep, err := evaluation.Run(context.Background(), spec, evaluation.Options{Seed: 3, Workers: 2})
		if onError == "" {
			var pe *external.ProtocolError
			if err == nil || !errors.As(err, &pe) || !errors.Is(err, external.ErrExited) || !strings.Contains(err.Error(), "cell das-table1/") {
				t.Errorf("on_error unset: %v, want the run to stop with the policy's exit, naming the cell", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("on_error row: the run stopped: %v", err)
		}
		if len(rep.Failed) != 1 || string(rep.Failed[0].Scheduler) != "external:"+name || !strings.Contains(rep.Failed[0].Err, "exit status 3") {
			t.Fatalf("failed rows %+v, want external:%s's exit", rep.Failed, name)
		}
		for _, c := range rep.Cells {
			if c.Cell.Scheduler != "fifo-firstfit" {
				t.Errorf("cell %s of the failed row is kept", c.Cell.Key())
			}
		}
		if len(rep.Cells) != spec.Seeds {
			t.Errorf("%d cells, want fifo-firstfit's %d", len(rep.Cells), spec.Seeds)
		}
		tab := rep.Table()
		if !slices.ContainsFunc(tab.Notes, func(n string) bool {
			return strings.Contains(n, "external:"+name) && strings.Contains(n, "failed") && strings.Contains(n, "exit status 3")
		}) {
			t.Errorf("no note names the failed row: %q", tab.Notes)
		}
	}
}
