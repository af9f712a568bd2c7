// Package profiling turns profiler output into co-location samples: readers
// for nvidia-smi dmon, DCGM exporter text, nsys CSV, /proc and pidstat, the
// local CPU-interference profiler, and a synthetic co-location generator.
// Samples leave the package as profile_samples tables for the fitting package.
package profiling
