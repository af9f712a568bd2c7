// Package simtest holds the cluster fixtures that the tests of the
// simulator and of the learned schedulers share.
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
	if err != nil {
		t.Fatal(err)
	}
	c.Name = name
	return c
}
