//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/segment/segtest"
	"golang.org/x/sys/unix"
)

// iterateMapped is iterate over the segment file mapped from the page
// cache, as scan reads it: the bytes come from memory the CPU caches have
// not seen (a fresh mapping faults its pages in), where iterate's
// in-memory copy of a 64 MiB segment may still be in a large L3.
func iterateMapped(b *testing.B, in *perfInput) {
	f, err := os.Open(filepath.Join(in.dir, fmt.Sprintf("perf-%s-0", in.codec), segtest.SegmentFileName(0)))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	data, err := unix.Mmap(int(f.Fd()), 0, len(in.seg), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Munmap(data)
	iterate(b, data, analysis.NewFingerprinter())
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
