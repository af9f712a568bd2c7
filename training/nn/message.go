package nn

// The edge-conditioned convolution spends most of its element-wise time
// on rows of d = 16 values: per edge, f+1 updates o += c_k·y_k of one
// destination row. floats.AddScaled does each as a call into gonum's
// assembly, whose overhead outweighs 16 multiply-adds; these loops do all
// f+1 updates in one pass over the row. Every element still receives the
// same terms in the same order, each rounded as AxpyUnitary rounds it (the
// product, then the sum; the explicit float64 conversions forbid a fused
// multiply-add), so the bits are those of the calls they replace.

// addMessage adds c[k]·y[k·d : (k+1)·d] to o for k = 0, 1, … in turn
// (len(c) terms; len(o) = d).
func addMessage(o, c, y []float64) {
	d := len(o)
	if len(c) == 4 {
		c0, c1, c2, c3 := c[0], c[1], c[2], c[3]
		y0, y1, y2, y3 := y[:d:d], y[d:2*d:2*d], y[2*d:3*d:3*d], y[3*d:4*d:4*d]
		j0 := 0
		switch {
		case haveAVX512 && d%8 == 0 && d > 0:
			// The same terms in the same order, eight elements per
			// instruction.
			j0 = d
			addMessage4z(&o[0], &c[0], &y[0], d)
		case haveKernels && d >= 2:
			// Two elements per instruction; an odd last element
			// below.
			j0 = d &^ 1
			addMessage4(&o[0], &c[0], &y[0], d)
		}
		for j := j0; j < d; j++ {
			v := o[j]
			v += float64(c0 * y0[j])
			v += float64(c1 * y1[j])
			v += float64(c2 * y2[j])
			v += float64(c3 * y3[j])
			o[j] = v
		}
		return
	}
	for k, ck := range c {
		yk := y[k*d : (k+1)*d : (k+1)*d]
		for j := range o {
			o[j] += float64(ck * yk[j])
		}
	}
}

// spreadMessage adds c[k]·g to dy[k·d : (k+1)·d] for every k (len(g) =
// d): the transpose of addMessage, as EdgeConv's backward pass needs it.
func spreadMessage(dy, c, g []float64) {
	d := len(g)
	if len(c) == 4 {
		c0, c1, c2, c3 := c[0], c[1], c[2], c[3]
		d0, d1, d2, d3 := dy[:d:d], dy[d:2*d:2*d], dy[2*d:3*d:3*d], dy[3*d:4*d:4*d]
		j0 := 0
		switch {
		case haveAVX512 && d%8 == 0 && d > 0:
			j0 = d
			spreadMessage4z(&dy[0], &c[0], &g[0], d)
		case haveKernels && d >= 2:
			j0 = d &^ 1
			spreadMessage4(&dy[0], &c[0], &g[0], d)
		}
		for j := j0; j < d; j++ {
			v := g[j]
			d0[j] += float64(c0 * v)
			d1[j] += float64(c1 * v)
			d2[j] += float64(c2 * v)
			d3[j] += float64(c3 * v)
		}
		return
	}
	for k, ck := range c {
		dk := dy[k*d : (k+1)*d : (k+1)*d]
		for j, v := range g {
			dk[j] += float64(ck * v)
		}
	}
}

// messageCoefs fills c (len f+1) with the coefficients of edge e's
// message: s·E_ek for each edge feature k, then s for the filter's bias.
func messageCoefs(c []float64, s float64, ef []float64, e, f int) []float64 {
	if cap(c) < f+1 {
		c = make([]float64, f+1)
	}
	c = c[:f+1]
	for k := 0; k < f; k++ {
		c[k] = s * ef[e*f+k]
	}
	c[f] = s
	return c
}
