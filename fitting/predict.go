package fitting

import (
	"fmt"
	"math"

	"github.com/schedlab/schedlab/profiling"
)

// PredictionRow is one row of `schedlab fit --predict`'s output: a sample's
// measured speed relative to running alone beside the model's prediction,
// so that a held-out set can be scored by anyone. A sample the model
// cannot take (bad input) keeps its row, with NaN predicted and the reason.
type PredictionRow struct {
	SampleID  string  `parquet:"sample_id"`
	Source    string  `parquet:"source"`
	File      string  `parquet:"file"`
	Line      int64   `parquet:"line"`
	GPU       string  `parquet:"gpu"`
	JobType   string  `parquet:"job_type"`
	CoType    string  `parquet:"co_type"`
	Measured  float64 `parquet:"measured_speed"`
	Predicted float64 `parquet:"predicted_speed"` // NaN where Reason says why
	Term      string  `parquet:"term"`            // the term and scope that predicted it
	Reason    string  `parquet:"reason"`
}

// PredictShare predicts every GPU-sharing sample with m's GPU-sharing
// term: the chosen form's fit on the sample's GPU type, or the pooled fit
// for a GPU type the model was not fitted on.
func PredictShare(m *InterferenceModel, samples []profiling.ShareSample) ([]PredictionRow, error) {
	t := m.GPUShare
	if t == nil {
		return nil, fmt.Errorf("model has no GPU-sharing term (fit it with gpu_share_samples)")
	}
	obs, bad := ShareObservations(samples)
	rows := make([]PredictionRow, len(samples))
	for i := range samples {
		s := &samples[i]
		rows[i] = PredictionRow{SampleID: s.SampleID, Source: s.Source, File: s.File, Line: s.Line, GPU: s.GPU,
			JobType: s.JobType, CoType: s.CoType, Measured: s.Speed, Predicted: math.NaN()}
	}
	for _, q := range bad {
		rows[q.Row].Reason = q.Reason
	}
	for i := range obs {
		o := &obs[i]
		f := t.FitFor(o.GPU)
		if f == nil {
			rows[o.Row].Reason = fmt.Sprintf("no %s fit for GPU %q nor a pooled one", t.Form, o.GPU)
			continue
		}
		rows[o.Row].Predicted = f.Speed(o.UJ, o.UC, o.JobType, o.CoType)
		rows[o.Row].Term = "gpu-share " + f.Form + "@" + f.Scope
	}
	return rows, nil
}

// PredictSlowdown predicts every CPU/PCIe co-location sample with m's
// "ours" term, as speeds: measured 1/(1 + S), predicted 1/(1 + Ŝ).
func PredictSlowdown(m *InterferenceModel, samples []profiling.Sample) ([]PredictionRow, error) {
	if !m.HasCPU() {
		return nil, fmt.Errorf("model has no CPU/PCIe term (%s)", m.Model)
	}
	obs, bad := Observations(samples)
	rows := make([]PredictionRow, len(samples))
	for i := range samples {
		s := &samples[i]
		rows[i] = PredictionRow{SampleID: s.SampleID, Source: s.Source, JobType: s.Model, Measured: 1 / (1 + s.Slowdown), Predicted: math.NaN()}
	}
	for _, q := range bad {
		rows[q.Row].Reason = q.Reason
	}
	ours := ours()
	p := []float64{m.Alpha1, m.Alpha2, m.Alpha3, m.Beta1, m.Beta2, m.Lambda}
	k := 0
	for i := range samples {
		if rows[i].Reason != "" {
			continue
		}
		rows[i].Predicted = 1 / (1 + ours.Predict(p, obs[k]))
		rows[i].Term = Ours
		k++
	}
	return rows, nil
}
