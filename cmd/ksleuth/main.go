// Command ksleuth is an offline forensic analyzer for Apache Kafka log
// directories. See README.md.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

func main() {
	// KSLEUTH_CPUPROFILE=FILE writes a CPU profile of the run, for
	// docs/performance.md's profiles (go tool pprof FILE).
	if p := os.Getenv("KSLEUTH_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "ksleuth: KSLEUTH_CPUPROFILE: %v\n", err)
			os.Exit(exitFailed)
		}
		code := run(os.Args[1:], os.Stdout, os.Stderr)
		pprof.StopCPUProfile()
		f.Close()
		os.Exit(code)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
