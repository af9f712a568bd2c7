package sensitivity

// CellsFile is the map's cells as Parquet, under the experiment's eval
// directory: one row per part and grid point (CellRow).
const CellsFile = "cells.parquet"

// CellRow is one grid point of one part as a row of CellsFile: its
// operating point (load multiplier and socket rule where the part sweeps
// them), the multipliers and the scales they make, the mean JCTs (in the
// part's unit, means over seeds), the floor, and the margin, headroom and
// share (NaN where undefined).
type CellRow struct {
	Part              string  `parquet:"part"`
	Learned           string  `parquet:"learned"`
	Load              float64 `parquet:"load_multiplier"`
	Socket            string  `parquet:"socket"`
	Comm              float64 `parquet:"comm_multiplier"`
	Interference      float64 `parquet:"interference_multiplier"`
	CommScale         float64 `parquet:"comm_scale"`
	InterferenceScale float64 `parquet:"interference_scale"`
	Unit              string  `parquet:"jct_unit"`
	BestHeuristic     string  `parquet:"best_heuristic"`
	BestHeuristicJCT  float64 `parquet:"best_heuristic_jct"`
	LearnedJCT        float64 `parquet:"learned_jct"`
	FloorJCT          float64 `parquet:"floor_jct"`
	Margin            float64 `parquet:"margin"`
	Headroom          float64 `parquet:"headroom"`
	Share             float64 `parquet:"headroom_share"`
	LeftOut           string  `parquet:"left_out"`
}

// CellRows are the map's cells, part by part, row-major.
func (r *Result) CellRows() []CellRow {
	var out []CellRow
	for _, pr := range r.Parts {
		p := pr.Part
		for _, row := range pr.Cells {
			for _, c := range row {
				out = append(out, CellRow{Part: p.Name, Learned: p.Learned, Load: p.Load, Socket: p.Socket,
					Comm: c.Comm, Interference: c.Interference, CommScale: c.Env.CommScale, InterferenceScale: c.Env.InterferenceScale,
					Unit: p.Unit, BestHeuristic: p.Heuristics[c.Best], BestHeuristicJCT: c.Heuristics[c.Best], LearnedJCT: c.Learned,
					FloorJCT: c.Floor, Margin: c.Margin, Headroom: c.Headroom, Share: c.Share, LeftOut: c.LeftOut})
			}
		}
	}
	return out
}
