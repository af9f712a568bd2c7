// Package families links in every learned scheduler family: importing it
// (for its side effect) registers the families with package training and
// their schedulers with package schedulers. One line per family.
package families

import (
	_ "github.com/schedlab/schedlab/training/das"     // das, da, da+mc, da+rwgp, das-h*, das-tau*
	_ "github.com/schedlab/schedlab/training/deepsys" // deepsys, atte
	_ "github.com/schedlab/schedlab/training/dl2"     // dl2
	_ "github.com/schedlab/schedlab/training/marl"    // marl-device, marl-server, marl-single
	_ "github.com/schedlab/schedlab/training/rifling" // rifling
)
