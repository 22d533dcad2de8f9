//go:build unix

package replicas_test

import "syscall"

// cpuNanos is the process's user and system CPU time so far: the
// benchmark reports CPU per op beside wall time, which other processes
// on the machine skew.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
