package calibration

import (
	"fmt"
	"math"

	"github.com/schedlab/schedlab/fitting"
)

// TableIIICheck is MARL Table III as a calibration row: the paper's
// interference model ("ours") has the lowest cross-validated prediction
// error of its five models (13.1 %, then TRACON-Nonlinear 22.9 %). Ours are
// the fit stage's cross-validated errors on the calibration samples
// (fit/coefficients.parquet: one row per coefficient, each carrying its
// model's cv_error). An ordering, met when ours is strictly the lowest.
func TableIIICheck(rows []fitting.CoefficientRow) (Check, error) {
	cv := map[string]float64{}
	for i, r := range rows {
		if _, ok := fitting.ModelByName(r.Model); !ok {
			return Check{}, fmt.Errorf("calibration: Table III: row %d: unknown model %q", i, r.Model)
		}
		if math.IsNaN(r.CVError) || math.IsInf(r.CVError, 0) || r.CVError < 0 {
			return Check{}, fmt.Errorf("calibration: Table III: row %d (%s): cv_error must be finite and ≥ 0, got %v", i, r.Model, r.CVError)
		}
		if v, ok := cv[r.Model]; ok && v != r.CVError {
			return Check{}, fmt.Errorf("calibration: Table III: row %d (%s): cv_error %v differs from %v on an earlier row", i, r.Model, r.CVError, v)
		}
		cv[r.Model] = r.CVError
	}
	ours, ok := cv[fitting.Ours]
	if !ok {
		return Check{}, fmt.Errorf("calibration: Table III: no %q model among the fit's coefficients", fitting.Ours)
	}
	// The best other model, in the paper's row order (ties: the first).
	var other, paperOther fitting.Model
	best, paperBest := math.Inf(1), math.Inf(1)
	var oursModel fitting.Model
	for _, m := range fitting.Models() {
		if m.Name == fitting.Ours {
			oursModel = m
			continue
		}
		v, ok := cv[m.Name]
		if !ok {
			return Check{}, fmt.Errorf("calibration: Table III: no %q model among the fit's coefficients", m.Name)
		}
		if v < best {
			best, other = v, m
		}
		if m.Paper < paperBest {
			paperBest, paperOther = m.Paper, m
		}
	}
	pct := func(x float64) string { return fmt.Sprintf("%.1f %%", 100*x) }
	return Check{
		Target:    "MARL Table III: our interference model's cross-validated error is the lowest of the five models",
		Paper:     fmt.Sprintf("yes (%s vs %s %s)", pct(oursModel.Paper), paperOther.Label, pct(paperOther.Paper)),
		Ours:      fmt.Sprintf("%s vs %s %s", pct(ours), other.Label, pct(best)),
		Tolerance: "ordering",
		Within:    ours < best,
	}, nil
}
