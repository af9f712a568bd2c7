package evaluation

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sim"
)

// TestDASTable1Standalone: under sim.speed standalone das-table1 is a pure
// trace replay, so every evaluated job's JCT is its queueing plus its
// recorded duration and its run time is that duration; under the speed
// model some job runs longer (else the test could not tell the two apart).
// Tolerance: 1e-9 relative to the finish time, the rounding of the
// differences finish − submit and start − submit.
func TestDASTable1Standalone(t *testing.T) {
	s := smallDAS(t)
	s.Schedulers = []string{"fifo-ff", "drf-lb", "tetris"}
	s.Sim.Speed = sim.SpeedStandalone
	rep, err := Run(context.Background(), s, Options{Seed: 7, NewScheduler: cheapSchedulers})
	if err != nil {
		t.Fatal(err)
	}
	jobs := 0
	for _, c := range rep.Cells {
		for _, j := range c.Jobs {
			tol := 1e-9 * max(1, j.FinishS)
			if math.Abs(j.JCTS-(j.QueueS+j.DurationS)) > tol || math.Abs(j.RunS-j.DurationS) > tol {
				t.Fatalf("%s: job %s: JCT %g, queueing %g + duration %g = %g; run %g",
					c.Cell.Key(), j.JobID, j.JCTS, j.QueueS, j.DurationS, j.QueueS+j.DurationS, j.RunS)
			}
			jobs++
		}
	}
	if jobs == 0 {
		t.Fatal("no evaluated job")
	}
	if notes := strings.Join(rep.Table().Notes, "\n"); !strings.Contains(notes, "standalone speed (trace replay") {
		t.Errorf("notes do not name the standalone speed model:\n%s", notes)
	}

	s.Sim.Speed = sim.SpeedModel
	rep, err = Run(context.Background(), s, Options{Seed: 7, NewScheduler: cheapSchedulers})
	if err != nil {
		t.Fatal(err)
	}
	slower := false
	for _, c := range rep.Cells {
		for _, j := range c.Jobs {
			slower = slower || j.RunS > j.DurationS*(1+1e-9)
		}
	}
	if !slower {
		t.Error("under the speed model no job ran longer than its duration")
	}
	if notes := strings.Join(rep.Table().Notes, "\n"); !strings.Contains(notes, "model speed (interference and communication), no calibrated environment") {
		t.Errorf("notes do not name the speed model:\n%s", notes)
	}
}
