//go:build !unix

package replicas_test

// cpuNanos is unknown here: the benchmark reports 0 CPU time.
func cpuNanos() int64 { return 0 }
