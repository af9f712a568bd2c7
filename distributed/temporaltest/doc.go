// Package temporaltest tests schedlab's Temporal executor end to end
// against Temporal's in-process server (go.temporal.io/server/temporaltest,
// bound to 127.0.0.1). It is a module of its own so that the server's
// dependencies stay out of schedlab's module, its binary and `make test`;
// `make test-distributed` runs it.
package temporaltest
