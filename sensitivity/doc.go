// Package sensitivity maps where learned placement pays: the mean-JCT
// margin of a learned scheduler over the best of a set of heuristics,
//
//	margin = (best heuristic − learned) / best heuristic,
//
// across a grid of multipliers on a calibrated environment's
// communication scale (sim.Environment.CommScale) and interference scale
// (InterferenceScale), each grid point with its own trained model
// (issue 15, item 6). Where the environment carries a GPU-sharing term
// (sim.GPUShareParams, issue 32), the interference multiplier scales its
// gpu_share_scale too: the interference axis is all co-location cost, CPU
// and PCIe contention and GPU sharing alike.
//
// Data enters as Parts (a learned scheduler, its heuristics and the
// calibrated environment the grid is centred on), a Grid of multipliers
// and an Evaluator that trains and evaluates one grid point (package
// stages supplies it: the training and evaluation machinery of the
// pipeline). Run evaluates every point in a pool, each writing only its
// own slot, so the Result does not depend on the number of workers. It
// leaves as a table (Markdown, CSV, LaTeX) and a heat map per part (SVG,
// PNG).
//
// A positive margin says learned placement beats every heuristic there; a
// margin at or below zero says the best heuristic, which the table names,
// is already as good: packing (tetris-pack, first-fit) where communication
// dominates, spreading (load balancing) where co-location interference
// does.
package sensitivity
