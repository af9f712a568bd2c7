package nn

import "fmt"

// Graph is a directed graph given as an edge list, the form the
// edge-conditioned convolution reads: edge i carries a message from node
// Src[i] to node Dst[i]. An undirected link is two edges. Edge order fixes
// the summation order, so the same graph always gives the same bits.
type Graph struct {
	Nodes    int
	Src, Dst []int
	invDeg   []float64 // 1/in-degree per node, 0 for nodes with none
	// out lists each node's outgoing edges in edge order: node u's are
	// out[outStart[u]:outStart[u+1]]; in, inStart its incoming ones.
	out, outStart []int
	in, inStart   []int
}

// NewGraph checks an edge list and precomputes in-degrees. Src and Dst are
// kept, not copied.
func NewGraph(nodes int, src, dst []int) (*Graph, error) {
	if len(src) != len(dst) {
		return nil, fmt.Errorf("nn: graph with %d sources and %d destinations", len(src), len(dst))
	}
	g := &Graph{Nodes: nodes, Src: src, Dst: dst, invDeg: make([]float64, nodes)}
	for i := range src {
		if src[i] < 0 || src[i] >= nodes || dst[i] < 0 || dst[i] >= nodes {
			return nil, fmt.Errorf("nn: edge %d (%d→%d) outside %d nodes", i, src[i], dst[i], nodes)
		}
		g.invDeg[dst[i]]++
	}
	for i, d := range g.invDeg {
		if d > 0 {
			g.invDeg[i] = 1 / d
		}
	}
	g.out, g.outStart = byNode(src, nodes)
	g.in, g.inStart = byNode(dst, nodes)
	return g, nil
}

// byNode lists the edges by their end in ends (Src or Dst), each node's
// in edge order: node u's are list[start[u]:start[u+1]].
func byNode(ends []int, nodes int) (list, start []int) {
	start = make([]int, nodes+1)
	for _, u := range ends {
		start[u+1]++
	}
	for u := 0; u < nodes; u++ {
		start[u+1] += start[u]
	}
	list = make([]int, len(ends))
	next := append([]int(nil), start[:nodes]...)
	for e, u := range ends {
		list[next[u]] = e
		next[u]++
	}
	return list, start
}

// inEdges returns node u's incoming edges in edge order.
func (g *Graph) inEdges(u int) []int { return g.in[g.inStart[u]:g.inStart[u+1]] }

// Edges returns the number of edges.
func (g *Graph) Edges() int { return len(g.Src) }
