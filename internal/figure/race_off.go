//go:build !race

package figure

import "image/png"

// pngCompression is the level the PNGs are written at (race_on.go).
const pngCompression = png.DefaultCompression
