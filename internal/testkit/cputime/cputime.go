// Package cputime reads the CPU time a process has used, for the benchmarks that report CPU
// per operation beside wall time: on a shared machine wall time swings with the load of
// other work, while the process's own CPU time does not.
package cputime
