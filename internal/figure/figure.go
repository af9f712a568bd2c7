// Package figure renders a column of gonum plots as the SVG and PNG pair
// that schedlab writes for every table and learning curve, with the key
// (legend) in a strip below the panels, clear of their data.
//
// Importing it sets gonum's default font to Liberation Sans (gonum's own
// default is a serif face), so that the plots read like the report's
// pages, which are set in the reader's sans-serif face.
package figure

import (
	"bytes"
	"image/color"
	"image/png"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

func init() {
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	plotter.DefaultFont = plot.DefaultFont
}

// Palette is Okabe & Ito's colour-blind-safe set; series beyond it reuse
// colours in order.
var Palette = []color.NRGBA{
	{0xe6, 0x9f, 0x00, 0xff}, {0x56, 0xb4, 0xe9, 0xff}, {0x00, 0x9e, 0x73, 0xff}, {0xf0, 0xe4, 0x42, 0xff},
	{0x00, 0x72, 0xb2, 0xff}, {0xd5, 0x5e, 0x00, 0xff}, {0xcc, 0x79, 0xa7, 0xff}, {0x00, 0x00, 0x00, 0xff},
}

// Dashes tell a second grouping apart where colours tell the first.
var Dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}}

// Key is a figure's legend, one entry per series, shared by its panels
// and drawn below them.
type Key struct {
	labels []string
	thumbs [][]plot.Thumbnailer
}

// Add adds an entry; a label already in the key is not added again (the
// same series in another panel).
func (k *Key) Add(label string, thumbs ...plot.Thumbnailer) {
	for _, l := range k.labels {
		if l == label {
			return
		}
	}
	k.labels = append(k.labels, label)
	k.thumbs = append(k.thumbs, thumbs)
}

// Len is the number of entries.
func (k *Key) Len() int {
	if k == nil {
		return 0
	}
	return len(k.labels)
}

const keyRow = 16 // points per row of the key

// keyInset is the key's left and right margin in the strip.
const keyInset = 48 + 12

// columns is how many columns the key's entries are set in on a canvas w
// wide: up to three, as many as the longest entry leaves room for.
func (k *Key) columns(w vg.Length) int {
	l := plot.NewLegend()
	widest := vg.Length(0)
	for _, s := range k.labels {
		widest = max(widest, l.TextStyle.Rectangle(s).Max.X)
	}
	widest += l.ThumbnailWidth + vg.Points(24)
	cols := 1
	for cols < 3 && cols < k.Len() && vg.Length(cols+1)*widest <= w-vg.Points(keyInset) {
		cols++
	}
	return cols
}

// height is the strip the key takes below the panels on a canvas w wide.
func (k *Key) height(w vg.Length) vg.Length {
	if k.Len() == 0 {
		return 0
	}
	cols := k.columns(w)
	rows := (k.Len() + cols - 1) / cols
	return vg.Points(float64(keyRow*rows + 12))
}

// draw sets the entries column by column, top to bottom, in c.
func (k *Key) draw(c draw.Canvas, w vg.Length) {
	cols := k.columns(w)
	rows := (k.Len() + cols - 1) / cols
	cw := (c.Max.X - c.Min.X) / vg.Length(cols)
	for col := 0; col < cols; col++ {
		l := plot.NewLegend()
		l.Top, l.Left = true, true
		l.Padding = vg.Points(keyRow) - l.TextStyle.Font.Size
		for i := col * rows; i < min((col+1)*rows, k.Len()); i++ {
			l.Add(k.labels[i], k.thumbs[i]...)
		}
		x := c.Min.X + vg.Length(col)*cw
		l.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: c.Min.Y}, Max: vg.Point{X: x + cw, Y: c.Max.Y}}})
	}
}

// ShareX puts every panel on the same x range, the union of theirs, for
// panels whose x axes show one quantity (episodes, a rate).
func ShareX(plots ...*plot.Plot) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range plots {
		lo, hi = min(lo, p.X.Min), max(hi, p.X.Max)
	}
	if lo > hi {
		return
	}
	for _, p := range plots {
		p.X.Min, p.X.Max = lo, hi
	}
}

// Column draws plots one above the other, with aligned axes, on a w×h
// canvas and returns it as SVG (fonts not embedded, so the bytes do not
// depend on the machine) and as PNG at 96 dpi on white.
func Column(plots []*plot.Plot, w, h vg.Length) (svg, png []byte, err error) {
	return ColumnKey(plots, nil, w, h)
}

// ColumnKey is Column with key's entries in a strip below the panels
// (the canvas grows by the strip; the panels keep w×h between them).
func ColumnKey(plots []*plot.Plot, key *Key, w, h vg.Length) (svg, png []byte, err error) {
	return column(plots, nil, key, w, h, 0)
}

// ColumnBars is Column with, right of each panel, the plot that bars
// holds at its index (nil for none; typically a plotter.ColorBar, the
// scale of a heat map), in a strip barW wide; the panels keep the rest.
func ColumnBars(plots, bars []*plot.Plot, w, h, barW vg.Length) (svg, png []byte, err error) {
	if len(bars) != len(plots) {
		panic("figure: ColumnBars: one bar (or nil) per panel")
	}
	return column(plots, bars, nil, w, h, barW)
}

func column(plots, bars []*plot.Plot, key *Key, w, h, barW vg.Length) (svg, png []byte, err error) {
	grid := make([][]*plot.Plot, len(plots))
	barGrid := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		grid[i] = []*plot.Plot{p}
		barGrid[i] = []*plot.Plot{nil}
		if bars != nil {
			barGrid[i][0] = bars[i]
		}
	}
	strip := key.height(w)
	h += strip
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Points(12), PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(6)}
	render := func(c vg.CanvasWriterTo) ([]byte, error) {
		dc := draw.New(c)
		panels := draw.Crop(dc, 0, -barW, strip, 0)
		for i, row := range plot.Align(grid, tiles, panels) {
			grid[i][0].Draw(row[0])
		}
		if barW > 0 {
			strip := draw.Crop(dc, w-barW, 0, strip, 0)
			for i, row := range plot.Align(barGrid, tiles, strip) {
				if barGrid[i][0] != nil {
					barGrid[i][0].Draw(row[0])
				}
			}
		}
		if strip > 0 {
			key.draw(draw.Crop(dc, vg.Points(48), -vg.Points(12), 0, strip-(dc.Max.Y-dc.Min.Y)-vg.Points(4)), w)
		}
		var b bytes.Buffer
		if _, err := c.WriteTo(&b); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	if svg, err = render(vgsvg.NewWith(vgsvg.UseWH(w, h), vgsvg.EmbedFonts(false))); err != nil {
		return nil, nil, err
	}
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(96), vgimg.UseBackgroundColor(color.White))
	if png, err = render(pngCanvas{img}); err != nil {
		return nil, nil, err
	}
	return svg, png, nil
}

// pngCanvas writes its image as PNG at pngCompression: in a normal build
// the default level, the bytes vgimg.PngCanvas writes (png.Encode).
type pngCanvas struct{ *vgimg.Canvas }

func (c pngCanvas) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	e := png.Encoder{CompressionLevel: pngCompression}
	if err := e.Encode(&b, c.Image()); err != nil {
		return 0, err
	}
	return b.WriteTo(w)
}
