// Package scaletest runs the built binary (clitest) at scale: scan
// --records over tens of thousands of partitions within the memory
// docs/performance.md states, and scan --force killed again and again
// while it replaces its table set. Each takes a minute or more on a busy
// machine, so they have a package, and a test timeout, of their own.
package scaletest

import (
	"testing"

	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
)

func TestMain(m *testing.M) { clitest.Main(m) }
