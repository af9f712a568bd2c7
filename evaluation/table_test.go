package evaluation

import (
	"math"
	"strings"
	"testing"
)

// TestMarkdownWidth builds das-load's shape (three clusters × three rates
// plus the average, two metrics: 21 columns in one table) and a table
// with too many plain groups, and checks that no Markdown table row has
// more than MaxColumns cells and that every value is still shown.
func TestMarkdownWidth(t *testing.T) {
	metrics := []Metric{{"JCT (min)", "jct_min", 3}, {"Fee ($)", "fee_usd", 3}}
	var groups []string
	for _, c := range []string{"Small", "Medium", "Large"} {
		for _, r := range []string{"x0.5", "x1", "x2"} {
			groups = append(groups, c+"/"+r)
		}
	}
	groups = append(groups, AverageGroup)
	var plain []string
	for i := range 12 {
		plain = append(plain, string(rune('A'+i)))
	}
	for _, gs := range [][]string{groups, plain} {
		tab := &Table{Title: "t", Groups: gs, Metrics: metrics}
		for r := range 2 {
			row := TableRow{Label: "s" + string(rune('0'+r)), Source: SourceOurs}
			for i := range len(gs) * len(metrics) {
				row.Values = append(row.Values, float64(1000*r+i)+0.123)
			}
			tab.Rows = append(tab.Rows, row)
		}
		md := string(tab.Markdown())
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(line, "|") && strings.Count(line, "|")-1 > MaxColumns {
				t.Errorf("row with %d columns:\n%s", strings.Count(line, "|")-1, line)
			}
		}
		for _, row := range tab.Rows {
			for i, v := range row.Values {
				if want := " " + display(v, metrics[i%2]) + " |"; !strings.Contains(md, want) {
					t.Errorf("value %v (%q) missing:\n%s", v, want, md)
				}
			}
		}
		if gs[0] == "Small/x0.5" && !strings.Contains(md, "## Small") {
			t.Errorf("das-load shape not split by cluster:\n%s", md)
		}
	}
}

func TestDisplaySignificantDigits(t *testing.T) {
	m := Metric{Digits: 3}
	for _, tc := range []struct {
		v    float64
		want string
	}{{398.327, "398"}, {14.778, "14.8"}, {1234.5, "1234"}, {0.12345, "0.123"}, {0.0012345, "0.001"}, {0, "0"}, {math.NaN(), "—"}, {-3.14159, "-3.14"}} {
		if got := display(tc.v, m); got != tc.want {
			t.Errorf("display(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if got := display(4, Metric{Digits: 0}); got != "4" {
		t.Errorf("count: %q", got)
	}
}
