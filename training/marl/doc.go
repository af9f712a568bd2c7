// Package marl is the MARL-GNN scheduler of Zhao & Wu (IEEE TNSM 2021;
// DESIGN.md §5): one placement agent per pod, hierarchical
// edge-conditioned graph networks over the data-centre topology, trained
// with advantage actor-critic in the simulator.
package marl
