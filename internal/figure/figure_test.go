package figure

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

func line(t *testing.T, xys plotter.XYs) *plotter.Line {
	t.Helper()
	l, err := plotter.NewLine(xys)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// The key sits in a strip below the panels: the canvas grows by it, the
// labels are drawn once however many panels show the series, and the
// plots' text is in the sans-serif face.
func TestColumnKey(t *testing.T) {
	a, b := plot.New(), plot.New()
	la, lb := line(t, plotter.XYs{{X: 0, Y: 1}, {X: 2, Y: 3}}), line(t, plotter.XYs{{X: 1, Y: 1}, {X: 5, Y: 2}})
	a.Add(la)
	b.Add(lb)
	key := &Key{}
	key.Add("series one", la)
	key.Add("series one", lb) // the same series in the other panel
	key.Add("series two", lb)
	if key.Len() != 2 {
		t.Fatalf("key has %d entries, want 2", key.Len())
	}
	ShareX(a, b)
	if a.X.Min != 0 || a.X.Max != 5 || b.X.Min != 0 || b.X.Max != 5 {
		t.Errorf("ShareX: x ranges [%v, %v] and [%v, %v], want both [0, 5]", a.X.Min, a.X.Max, b.X.Min, b.X.Max)
	}
	svg, pngBytes, err := ColumnKey([]*plot.Plot{a, b}, key, 5*vg.Inch, 5*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(svg), "series one"); n != 1 {
		t.Errorf("the key draws series one %d times, want once", n)
	}
	if !strings.Contains(string(svg), "Liberation Sans") && !strings.Contains(string(svg), "LiberationSans") {
		t.Errorf("the plot's text is not in Liberation Sans")
	}
	img, err := png.Decode(bytes.NewReader(pngBytes))
	if err != nil {
		t.Fatal(err)
	}
	_, plain, err := Column([]*plot.Plot{a, b}, 5*vg.Inch, 5*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	noKey, err := png.Decode(bytes.NewReader(plain))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dy() <= noKey.Bounds().Dy() {
		t.Errorf("with a key the figure is %d px tall, without %d: the key is not in a strip of its own", img.Bounds().Dy(), noKey.Bounds().Dy())
	}
}
