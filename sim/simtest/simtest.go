// Package simtest holds the cluster fixtures and the run digest that the
// tests of the simulator, of the schedulers and of the learned families
// share.
package simtest

import (
	"testing"

	"github.com/schedlab/schedlab/sim"
)

// Preset builds the named cluster preset (sim.Preset), named after it as
// the pipeline names its clusters, and fails t if it cannot.
func Preset(t testing.TB, name string) *sim.Cluster {
	t.Helper()
	spec, err := sim.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := spec.Build()
	c = built(t, c, err)
	c.Name = name
	return c
}

// FatTree builds sim.FatTree(k, server) and fails t if it cannot.
func FatTree(t testing.TB, k int, server string) *sim.Cluster {
	t.Helper()
	c, err := sim.FatTree(k, server)
	return built(t, c, err)
}

// Flat builds sim.Flat(n, server) and fails t if it cannot.
func Flat(t testing.TB, n int, server string) *sim.Cluster {
	t.Helper()
	c, err := sim.Flat(n, server)
	return built(t, c, err)
}

// built is a builder's cluster c, or t's failure with its err.
func built(t testing.TB, c *sim.Cluster, err error) *sim.Cluster {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return c
}
