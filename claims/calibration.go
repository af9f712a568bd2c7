package claims

import (
	"fmt"
	"math"
	"strings"

	"github.com/schedlab/schedlab/calibration"
	"github.com/schedlab/schedlab/evaluation"
)

// calibrationClaim is a calibration target of a paper (issue 15): the
// rows of tables/calibration.csv of one environment whose target starts
// with one of the prefixes. It holds when every such row is within its
// tolerance. The figures are computed once from the fitted environment,
// not sampled: no interval.
type calibrationClaim struct {
	id, source, environment, text, claimed string
	prefixes                               []string
}

// calibrationClaims are the registered ones, in order: a row of the
// calibration table that none reads gets a row of its own (Evaluate).
var calibrationClaims []calibrationClaim

func (c calibrationClaim) reads(r CalibrationRow) bool {
	if r.Environment != c.environment {
		return false
	}
	for _, p := range c.prefixes {
		if strings.HasPrefix(r.Target, p) {
			return true
		}
	}
	return false
}

// environmentPaper is the paper whose environment env is, as its
// declaration says (calibration.Environments); the MARL paper's for an
// environment not declared there.
func environmentPaper(env string) string {
	if e, ok := calibration.Environments[env]; ok && e.Paper != "" {
		return e.Paper
	}
	return evaluation.PaperMARL
}

func (c calibrationClaim) register() {
	calibrationClaims = append(calibrationClaims, c)
	add(Claim{ID: c.id, Paper: environmentPaper(c.environment), Source: c.source, Text: c.text, Claimed: c.claimed,
		Experiment: evaluation.Calibration, Evaluate: c.evaluate})
}

func (c calibrationClaim) evaluate(in *Input) (Outcome, error) {
	out := Outcome{Value: math.NaN(), Threshold: math.NaN(), Headroom: math.NaN(), TestedAt: "environment " + c.environment}
	var rows []CalibrationRow
	for _, r := range in.Calibration {
		if c.reads(r) {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		if e, ok := calibration.Environments[c.environment]; ok && !e.Fitted(in.Config) {
			out.Verdict, out.Note = NotRun, e.NotFitted
			return out, nil
		}
		return out, fmt.Errorf("%s has no row of environment %s whose target starts with %q", CalibrationFile, c.environment, c.prefixes)
	}
	return calibrationOutcome(out, rows), nil
}

// calibrationOutcome fills out from the rows a claim reads: one or two
// rows show their figures, more how many hold.
func calibrationOutcome(out Outcome, rows []CalibrationRow) Outcome {
	held := 0
	var paper, ours []string
	for _, r := range rows {
		if r.Within {
			held++
		}
		paper, ours = append(paper, r.Paper), append(ours, r.Ours)
	}
	if len(rows) <= 2 {
		out.Claimed, out.Ours = strings.Join(paper, "; "), strings.Join(ours, "; ")
	} else {
		out.Ours = fmt.Sprintf("%d of %d hold", held, len(rows))
	}
	out.Verdict = DoesNotHold
	if held == len(rows) {
		out.Verdict = Holds
	} else if len(rows) > 2 {
		for _, r := range rows {
			if !r.Within {
				out.Note += fmt.Sprintf("%s: %s (paper %s). ", r.Target, r.Ours, r.Paper)
			}
		}
		out.Note = strings.TrimSpace(out.Note)
	}
	return out
}

// unreadCalibration is a row for each row of the calibration table that
// no registered claim reads: a target added to the calibration stage is
// on the scoreboard before a claim is registered for it.
func unreadCalibration(in *Input) []Row {
	var out []Row
	for i, r := range in.Calibration {
		read := false
		for _, c := range calibrationClaims {
			read = read || c.reads(r)
		}
		if read {
			continue
		}
		c := Claim{ID: fmt.Sprintf("cal-row-%d", i+1), Paper: environmentPaper(r.Environment), Source: "calibration", Text: r.Target, Experiment: evaluation.Calibration}
		o := calibrationOutcome(Outcome{Value: math.NaN(), Threshold: math.NaN(), Headroom: math.NaN(), TestedAt: "environment " + r.Environment}, []CalibrationRow{r})
		out = append(out, Row{c, o})
	}
	return out
}
