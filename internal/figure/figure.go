// Package figure renders a column of gonum plots as the SVG and PNG pair
// that schedlab writes for every table and learning curve.
package figure

import (
	"bytes"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Palette is Okabe & Ito's colour-blind-safe set; series beyond it reuse
// colours in order.
var Palette = []color.NRGBA{
	{0xe6, 0x9f, 0x00, 0xff}, {0x56, 0xb4, 0xe9, 0xff}, {0x00, 0x9e, 0x73, 0xff}, {0xf0, 0xe4, 0x42, 0xff},
	{0x00, 0x72, 0xb2, 0xff}, {0xd5, 0x5e, 0x00, 0xff}, {0xcc, 0x79, 0xa7, 0xff}, {0x00, 0x00, 0x00, 0xff},
}

// Dashes tell a second grouping apart where colours tell the first.
var Dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}}

// Column draws plots one above the other, with aligned axes, on a w×h
// canvas and returns it as SVG (fonts not embedded, so the bytes do not
// depend on the machine) and as PNG at 96 dpi on white.
func Column(plots []*plot.Plot, w, h vg.Length) (svg, png []byte, err error) {
	grid := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		grid[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Points(12), PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(6)}
	render := func(c vg.CanvasWriterTo) ([]byte, error) {
		dc := draw.New(c)
		for i, row := range plot.Align(grid, tiles, dc) {
			grid[i][0].Draw(row[0])
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
	if png, err = render(vgimg.PngCanvas{Canvas: img}); err != nil {
		return nil, nil, err
	}
	return svg, png, nil
}
