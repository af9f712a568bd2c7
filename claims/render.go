package claims

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
)

// The scoreboard's files, relative to a run directory.
const (
	MarkdownFile = "tables/claims.md"
	CSVFile      = "tables/claims.csv"
)

// Write evaluates the claims on the run directory dir (Load, Evaluate)
// and writes tables/claims.md and tables/claims.csv there, each
// atomically. It returns the rows.
func Write(dir string, run Run) ([]Row, error) {
	in, err := Load(dir, run)
	if err != nil {
		return nil, err
	}
	rows, err := Evaluate(in)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "tables"), 0o755); err != nil {
		return nil, fmt.Errorf("claims: %w", err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{MarkdownFile, Markdown(rows)}, {CSVFile, CSV(rows)}} {
		if err := pipeline.WriteFileAtomic(filepath.Join(dir, filepath.FromSlash(f.name)), f.data); err != nil {
			return nil, fmt.Errorf("claims: %w", err)
		}
	}
	return rows, nil
}

// PaperFigure is the paper's figure the row shows.
func (r Row) PaperFigure() string {
	if r.Outcome.Claimed != "" {
		return r.Outcome.Claimed
	}
	return r.Claim.Claimed
}

// CIText is the row's 95 % CI cell: the interval with its number of
// samples, "n = 1" for a single sample, "—" for a figure that is not
// sampled or a claim not run.
func (r Row) CIText() string {
	switch {
	case !r.Verdict.Tested() || r.CI.N == 0:
		return "—"
	case r.CI.N == 1:
		return "n = 1"
	case !r.HasCI:
		return "pooled, " + r.samplesText()
	}
	return fmt.Sprintf("%s (%s)", interval(r.CI), r.samplesText())
}

// samplesText says what the samples are: n, and how many seeds and
// trained models (replicates) they span.
func (r Row) samplesText() string {
	return fmt.Sprintf("n = %d: %s × %s", r.CI.N, plural(r.Seeds, "seed", "seeds"), plural(r.Models, "model", "models"))
}

// plural is n with the noun one or many.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// VerdictText is the verdict, marked when it rests on one sample; an
// untestable claim says why: its claimed row did not learn, or its
// headroom and the claimed margin.
func (r Row) VerdictText() string {
	switch {
	case r.Verdict == Untestable && r.NotLearned != "":
		return fmt.Sprintf("%s (%s)", r.Verdict, r.NotLearned)
	case r.Verdict == Untestable:
		return fmt.Sprintf("%s (headroom %s %% < claimed %s %%)", r.Verdict, formatMargin(r.Headroom), formatMargin(r.Threshold))
	case r.CI.N == 1 && (r.Verdict == Holds || r.Verdict == DoesNotHold):
		return string(r.Verdict) + " (n = 1)"
	}
	return string(r.Verdict)
}

// formatMargin is a margin in per cent without its sign or unit: 5.9.
func formatMargin(v float64) string { return evaluation.FormatValue(v, 1) }

var cellEscaper = strings.NewReplacer("|", `\|`, "\n", " ")

// Markdown is the scoreboard for people: a count of verdicts, one row per
// claim (eight columns; a claim not run says why in place of our
// figure), then the notes and the rule.
func Markdown(rows []Row) []byte {
	var b bytes.Buffer
	b.WriteString("# claims: what the papers claim, and what this run says\n\n")
	count := map[Verdict]int{}
	for _, r := range rows {
		count[r.Verdict]++
	}
	why := "headroom below the claimed margin"
	if SetAside(rows) {
		why += ", or the claimed model did not learn"
	}
	fmt.Fprintf(&b, "%d claims: %d hold, %d do not hold, %d inconclusive, %d untestable here (%s), %d not run in this preset, %d not comparable (tested on a workload that is not the paper's).\n\n",
		len(rows), count[Holds], count[DoesNotHold], count[Inconclusive], count[Untestable], why, count[NotRun], count[NotComparable])
	b.WriteString("| id | source | claim | paper | ours | 95 % CI | tested at | verdict |\n|---|---|---|---|---|---|---|---|\n")
	var notes []string
	for _, r := range rows {
		ours, note := r.Ours, r.Note
		if !r.Verdict.Tested() { // the reason, in place of a figure
			ours, note = r.Note, ""
		}
		cells := []string{"`" + r.ID + "`", r.Source, r.Text, r.PaperFigure(), ours, r.CIText(), r.TestedAt, "**" + r.VerdictText() + "**"}
		for i, c := range cells {
			if c == "" {
				c = "—"
			}
			cells[i] = cellEscaper.Replace(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		if note != "" {
			notes = append(notes, fmt.Sprintf("`%s`: %s", r.ID, note))
		}
	}
	b.WriteString("\n")
	for _, n := range notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	for _, n := range Rules(rows) {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	return b.Bytes()
}

// SetAside reports whether a row's verdict was set aside because its
// claimed model did not learn (Outcome.NotLearned).
func SetAside(rows []Row) bool {
	return slices.ContainsFunc(rows, func(r Row) bool { return r.Verdict == Untestable && r.NotLearned != "" })
}

// Rules are the notes that explain rows' verdicts: RuleNotes, and
// NotLearnedRule where a verdict was set aside for it (SetAside), so
// that a run without a learned family's judgement reads as before.
func Rules(rows []Row) []string {
	if SetAside(rows) {
		return append(slices.Clone(RuleNotes), NotLearnedRule)
	}
	return RuleNotes
}

// NotLearnedRule explains the verdicts set aside because the claimed
// learned row did not learn.
const NotLearnedRule = "A claim on a learned method rests on its trained models: where the claimed row's family judges from their learning curves that they did not measurably learn (for DAS, a final validation whose share of decisions unlike FIFO-FirstFit is less than 5 points above that of the untrained network on the same jobs, as das-table1-training flags), every verdict of a test on them (holds, does not hold, inconclusive) becomes \"untestable here\", with the two shares: an untrained policy winning or losing says nothing of the method. Over several tests, one such test and none failing with models that learned make the claim untestable."

// RuleNotes explain the scoreboard under its table (doc.go in full); the
// run report repeats them.
var RuleNotes = []string{
	"Margins are (baseline − ours) / baseline of the mean, in per cent, positive when the claimed row is better; each claimed row is compared with the best (lowest) of the rows it is claimed to beat that this run has, in every column the claim covers, and the least margin is shown.",
	"95 % CI: percentile bootstrap (10,000 resamples, seeded from the run seed and the claim) of the margin over the claimed row's replicates and seeds, each matched to the baseline's same seed. A claim holds when the whole interval is beyond its threshold, does not hold when the whole interval is on the other side, and is inconclusive otherwise; with one sample (n = 1) the point value decides and the verdict says so. The interval holds training noise only when its samples span several models (replicates); seeds of one model vary the workload alone.",
	"Headroom: every cell has a floor, a mean JCT no scheduler can beat on its jobs (each job at its standalone speed from the first decision point, and no resource busier than the cluster holds); a margin claim on mean JCT is tested against the largest margin a scheduler at the floor would have over the claim's baseline, (baseline − floor) / baseline. Where that headroom is below the claimed margin and the claim did not hold, the verdict is \"untestable here\": no scheduler could have shown it in that environment. A claim that holds, or fails where the headroom allows, says so; over several columns, one untestable column and none failing make the claim untestable.",
	"Calibration targets are computed once in the fitted environment (no interval): they hold when within the tolerance of tables/calibration.csv. Wilcoxon claims hold when both p-values are below the paper's levels with DAS lower in rank sum.",
	"The MARL claims test the paper's headline 20 % (§I, §VI); the paper column gives each figure's own least margin, measured at k = 20. Paper figures from DAS Tables 1 and 3 are computed from the figures those tables show beside ours; the others are the papers' text, or plots whose numbers the text does not give.",
}

// CSV is the scoreboard for scripts: one line per claim, the verdict
// unmarked (n says how many samples), numbers in full precision, empty
// where there is none.
func CSV(rows []Row) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	// not_learned is last, so that readers of the older columns keep
	// working.
	_ = w.Write([]string{"id", "paper", "source", "experiment", "claim", "paper_figure", "ours", "value", "threshold", "headroom", "ci_low", "ci_high", "n", "seeds", "models", "tested_at", "verdict", "note", "not_learned"})
	for _, r := range rows {
		lo, hi := math.NaN(), math.NaN()
		if r.HasCI && r.CI.Valid() {
			lo, hi = r.CI.Lo, r.CI.Hi
		}
		_ = w.Write([]string{r.ID, r.Paper, r.Source, r.Experiment, r.Text, r.PaperFigure(), r.Ours,
			number(r.Value), number(r.Threshold), number(r.Headroom), number(lo), number(hi), strconv.Itoa(r.CI.N), strconv.Itoa(r.Seeds), strconv.Itoa(r.Models), r.TestedAt, string(r.Verdict), r.Note, r.NotLearned})
	}
	w.Flush()
	return b.Bytes()
}

func number(v float64) string {
	if !finite(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
