// Command ksleuth is an offline forensic analyzer for Apache Kafka log
// directories. See README.md.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

func main() {
	// KSLEUTH_CPUPROFILE=FILE writes a CPU profile of the run and
	// KSLEUTH_MEMPROFILE=FILE a profile of what it allocated, for
	// docs/performance.md's profiles (go tool pprof [-sample_index
	// alloc_space] FILE).
	cpu, mem := os.Getenv("KSLEUTH_CPUPROFILE"), os.Getenv("KSLEUTH_MEMPROFILE")
	if cpu == "" && mem == "" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	fail := func(name string, err error) {
		fmt.Fprintf(os.Stderr, "ksleuth: %s: %v\n", name, err)
		os.Exit(exitFailed)
	}
	var cpuFile *os.File
	if cpu != "" {
		f, err := os.Create(cpu)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fail("KSLEUTH_CPUPROFILE", err)
		}
		cpuFile = f
	}
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	if cpuFile != nil {
		pprof.StopCPUProfile()
		cpuFile.Close()
	}
	if mem != "" {
		f, err := os.Create(mem)
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fail("KSLEUTH_MEMPROFILE", err)
		}
	}
	os.Exit(code)
}
