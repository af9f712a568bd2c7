package claims

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/evaluation"
)

// The registry, in the papers' order: DAS Table 1 (with its ablation),
// Table 3, Fig. 5 and Appendix E's Fig. 7; MARL Figs 7–10; then the
// calibration targets (MARL §II and Table III, DAS Table 1's heuristic
// spreads). Each paper figure is read from the experiment registry's
// References where it lives there (DAS Tables 1 and 3); the MARL
// figures are the paper's text (§V-B), quoted where registered.
func registerPapers() {
	dasClusters := []string{"small", "medium", "large"}
	t1 := evaluation.MustLookup(evaluation.DASTable1).Reference
	for _, m := range []metric{jct, fee} {
		for _, c := range dasClusters {
			cmp := comparison{experiment: evaluation.DASTable1, claimed: []string{"das"}, against: dasBaselines,
				metrics: []metric{m}, cluster: c, scale: dasScale}
			id := fmt.Sprintf("das-%s-%s", strings.ToLower(m.String()), c)
			add(Claim{ID: id, Paper: evaluation.PaperDAS, Source: "DAS Table 1",
				Text:       fmt.Sprintf("DAS has a lower mean %s than every baseline (7 heuristics, DL², RIFLING) on %s", m, title(c)),
				Claimed:    paperMargin(t1, title(c), m, "das", dasBaselines),
				Experiment: evaluation.DASTable1, Evaluate: cmp.evaluate(id)})
		}
	}
	// DAS Table 3 and App. E pair DAS with RIFLING in the paper's PPO form.
	dasVsRIFLING := pair{claimed: "das", against: evaluation.DASRIFLING}
	for _, c := range dasClusters {
		id := "das-wilcoxon-" + c
		add(Claim{ID: id, Paper: evaluation.PaperDAS, Source: "DAS Table 3",
			Text:       fmt.Sprintf("DAS beats RIFLING (PPO, the paper's form) on %s, Wilcoxon signed-rank on per-job JCT (p < 0.05) and fee (p < 0.10)", title(c)),
			Claimed:    paperWilcoxon(title(c)),
			Experiment: evaluation.DASTable1, Evaluate: wilcoxon(c, dasVsRIFLING)})
	}
	variants := []string{"da", "da+mc", "da+rwgp"}
	register(evaluation.PaperDAS, "das-ablation", "DAS Table 1 (ablation)",
		"DAS (DA+MC+RWGP) has the lowest average JCT and fee of its four variants",
		"JCT "+paperMargin(t1, evaluation.AverageGroup, jct, "das", variants)+"; fee "+paperMargin(t1, evaluation.AverageGroup, fee, "das", variants),
		comparison{experiment: evaluation.DASTable1, claimed: []string{"das"}, against: variants, metrics: []metric{jct, fee}, average: true, scale: dasScale})
	register(evaluation.PaperDAS, "das-ablation-modules", "DAS Table 1 (ablation)",
		"Adding communication (MC) or the RWGP placement to DA each lowers the average JCT",
		fmt.Sprintf("DA+MC %s, DA+RWGP %s vs DA", percent(paperValue(t1, "da+mc", "da", jct)), percent(paperValue(t1, "da+rwgp", "da", jct))),
		comparison{experiment: evaluation.DASTable1, claimed: []string{"da+mc", "da+rwgp"}, against: []string{"da"}, metrics: []metric{jct}, average: true, scale: dasScale})
	register(evaluation.PaperDAS, "das-tuning-rifling", "DAS Fig. 5",
		"DAS beats RIFLING (PPO, the paper's form) on average JCT and fee at every h ∈ {1, 2, 4, 8} and τ ∈ {4, 6, 8, 10}",
		"every h and τ (plot only)",
		comparison{experiment: evaluation.DASTuning, claimed: []string{"das-h1", "das-h2", "das-h4", "das-h8", "das-tau4", "das-tau6", "das-tau8", "das-tau10"}, against: []string{evaluation.DASRIFLING}, metrics: []metric{jct, fee}, average: true, scale: dasScale})
	register(evaluation.PaperDAS, "das-tuning-tau", "DAS Fig. 5(c, d)",
		"τ = 8 gives DAS its lowest average JCT and fee of τ ∈ {4, 6, 8, 10}",
		"lowest at τ = 8 (plot only)",
		comparison{experiment: evaluation.DASTuning, claimed: []string{"das-tau8"}, against: []string{"das-tau4", "das-tau6", "das-tau10"}, metrics: []metric{jct, fee}, average: true, scale: dasScale})
	register(evaluation.PaperDAS, "das-tuning-h", "DAS Fig. 5(b)",
		"h = 4 attention heads give DAS its lowest average fee of h ∈ {1, 2, 4, 8}",
		"lowest at h = 4 (plot only)",
		comparison{experiment: evaluation.DASTuning, claimed: []string{"das-h4"}, against: []string{"das-h1", "das-h2", "das-h8"}, metrics: []metric{fee}, average: true, scale: dasScale})
	register(evaluation.PaperDAS, "das-load-fee", "DAS App. E, Fig. 7",
		"DAS has a lower mean fee than RIFLING (PPO, the paper's form) at every arrival rate (×0.5, ×1, ×2)",
		"every rate (plot only)",
		comparison{experiment: evaluation.DASLoad, claimed: []string{"das"}, against: []string{evaluation.DASRIFLING}, metrics: []metric{fee}, scale: dasScale})
	add(Claim{ID: "das-load-trend", Paper: evaluation.PaperDAS, Source: "DAS App. E, Fig. 7",
		Text:    "DAS's mean-JCT gain over RIFLING (PPO, the paper's form) is larger at the highest arrival rate than at the lowest, on every cluster",
		Claimed: "grows with the rate (plot only)", Experiment: evaluation.DASLoad, Evaluate: dasVsRIFLING.loadTrend})

	marlBaselines := []string{"tetris-pack", "tetris", "load-balancing", "lif", "deepsys", "atte"}
	// MARL §I and §VI: "at least 20 % improvement in terms of average JCT";
	// §V-B gives each figure's own least margin.
	for _, f := range []struct {
		id, source, experiment, what, paper, row string
	}{
		{"marl-fig7", "MARL Fig. 7", evaluation.MARLArrivals, "under uniform, Poisson and Google arrivals", "≥ +24.3 %", "marl-device"},
		{"marl-fig7-paper-training", "MARL Fig. 7", evaluation.MARLArrivals, "under uniform, Poisson and Google arrivals, trained with the paper's learning rate (1e-5) and progress reward", "≥ +24.3 %", "marl-device-paper"},
		{"marl-fig8", "MARL Fig. 8", evaluation.MARLServers, "on every server configuration", "≥ +22 %", "marl-device"},
		{"marl-fig9", "MARL Fig. 9", evaluation.MARLTopologies, "on fat-tree, VL2 and BCube", "≥ +21 %", "marl-device"},
	} {
		register(evaluation.PaperMARL, f.id, f.source,
			"MARL (device-level) has a mean JCT at least 20 % below every baseline (Tetris, LB, LIF, DeepSys, Atte) "+f.what,
			f.paper, comparison{experiment: f.experiment, claimed: []string{f.row}, against: marlBaselines, metrics: []metric{jct}, threshold: 20, scale: marlScale})
	}
	register(evaluation.PaperMARL, "marl-fig10", "MARL Fig. 10(b, c)",
		"Multi-agent MARL (device-level) has a lower mean JCT than one single-agent scheduler, under uniform and Google arrivals",
		"multi-agent lower (bars only)",
		comparison{experiment: evaluation.MARLVsSingle, claimed: []string{"marl-device"}, against: []string{"marl-single"}, metrics: []metric{jct}, scale: marlScale})

	for _, c := range []calibrationClaim{
		{"cal-marl-fig1a", "MARL Fig. 1(a)", "marl-paper", "Eight Table I jobs bin-packed on four 16-core 2-GPU servers slow down by 30 % (±3 points) on average", "30 %", []string{"Fig. 1(a)"}},
		{"cal-marl-fig3a", "MARL Fig. 3(a)", "marl-paper", "The same jobs load-balanced, workers and PSs across servers, slow down by 37 % (±3 points)", "37 %", []string{"Fig. 3(a)"}},
		{"cal-marl-fig1b", "MARL Fig. 1(b)", "marl-paper", "More co-located CTC jobs slow a ResNet-50 more than a VGG-16, and more with each CTC job", "4 orderings", []string{"Fig. 1(b)"}},
		{"cal-marl-fig2b", "MARL Fig. 2(b)", "marl-paper", "Two 1-GPU jobs under one CPU run slower than under two CPUs, both slower than standalone", "2 orderings", []string{"Fig. 2(b)"}},
		{"cal-marl-table3", "MARL Table III", "marl-paper", "The paper's interference model has the lowest cross-validated error of the five models", "13.1 % vs 22.9 %", []string{"MARL Table III"}},
	} {
		c.register()
	}
	for _, cl := range dasClusters {
		calibrationClaim{"cal-das-" + cl, "DAS Table 1 (heuristic rows)", "das-paper",
			fmt.Sprintf("On %s, the heuristic rows' mean JCT spreads by 4–22 %% and their fee by at most 6 %%", title(cl)),
			"4–22 %, ≤ 6 %", []string{"DAS Table 1, " + title(cl) + ":"}}.register()
	}
	registerPreemptive()
}

// dasBaselines are DAS Table 1's baselines: the heuristic and
// meta-heuristic rows, DL² and RIFLING (both forms of each: the DAS
// paper's, dl2-das and rifling-ppo, and ours).
var dasBaselines = append(slices.Clone(evaluation.DASHeuristics), "dl2", "dl2-das", "rifling", "rifling-ppo")

// register registers a comparison claim.
func register(paper, id, source, text, claimed string, c comparison) {
	add(Claim{ID: id, Paper: paper, Source: source, Text: text, Claimed: claimed, Experiment: c.experiment, Evaluate: c.evaluate(id)})
}

// paperFigures is row's figures (JCT, fee) in DAS Table 1's group.
func paperFigures(ref *evaluation.Reference, row, group string) ([]float64, bool) {
	v, ok := ref.Values(row, ref.Groups, 2)
	i := slices.Index(ref.Groups, group)
	if !ok || i < 0 {
		return nil, false
	}
	return v[2*i : 2*i+2], true
}

// paperValue is the margin of row over other in the paper's Average
// column of DAS Table 1, in per cent.
func paperValue(ref *evaluation.Reference, row, other string, m metric) float64 {
	a, _ := paperFigures(ref, row, evaluation.AverageGroup)
	b, _ := paperFigures(ref, other, evaluation.AverageGroup)
	return 100 * (b[m] - a[m]) / b[m]
}

// paperMargin is the paper's margin of row over the best of against in
// DAS Table 1's group, as text.
func paperMargin(ref *evaluation.Reference, group string, m metric, row string, against []string) string {
	v, _ := paperFigures(ref, row, group)
	best, bestV := "", math.Inf(1)
	for _, b := range against {
		if bv, ok := paperFigures(ref, b, group); ok && bv[m] < bestV {
			best, bestV = b, bv[m]
		}
	}
	return fmt.Sprintf("%s vs %s", percent(100*(bestV-v[m])/bestV), display(best))
}

// paperWilcoxon is DAS Table 3's p-values for the cluster, as text.
func paperWilcoxon(cluster string) string {
	ref := evaluation.MustLookup(evaluation.DASWilcoxon).Reference
	v, ok := ref.Values("DAS vs "+display(evaluation.DASRIFLING), []string{cluster}, 2)
	if !ok {
		return ""
	}
	return fmt.Sprintf("JCT p = %s, fee p = %s", evaluation.FormatValue(v[0], -3), evaluation.FormatValue(v[1], -3))
}
