//go:build !unix

package main

import (
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/analysis"
)

// iterateMapped is iterate over the in-memory segment where files are not
// mapped (scan reads them with read(2) there too).
func iterateMapped(b *testing.B, in *perfInput) { iterate(b, in.seg, analysis.NewFingerprinter()) }

// cpuTime is 0 where getrusage is missing: the CPU-second metrics then
// read as infinite, and wall time (ns/op) is what is left.
func cpuTime() time.Duration { return 0 }
