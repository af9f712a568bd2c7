// Package sim is the trace-driven cluster simulator: cluster and topology
// models (flat, fat-tree, VL2, BCube), the job execution model with
// interference and communication, a deterministic event-driven engine, run
// metrics, and the environment interface through which schedulers, learned or
// not, observe the cluster and act on it. sim knows schedulers only through
// that interface.
package sim
