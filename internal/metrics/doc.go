// Package metrics is the small Prometheus instrumentation library of the long-running commands
// (`prober run`, `api`): counters, gauges and histograms, with or without labels, a registry
// that serves them in the Prometheus text exposition format 0.0.4, and collectors of the Go
// runtime and of the process.
//
// It exists so that no binary links github.com/prometheus/client_golang, whose package
// initialisation (default registry, collectors, protobuf descriptors) every `prober check`
// paid at start-up although only the long-running commands serve metrics. For the same reason
// nothing here does work before a constructor is called.
//
// Definitions are code, not input: a constructor given an invalid metric or label name or
// unsorted buckets panics, and so does WithLabelValues given the wrong number of label values,
// with a message that names the metric, as client_golang does. Any test that creates the
// metrics or records one value finds the mistake. Label values, which may come from input,
// never cause a panic: invalid UTF-8 in them is replaced.
package metrics
