// Package causes checks ksleuth's causes of duplicates beyond a restart
// (a producer without idempotence retrying; a consume-transform-produce
// application producing its outputs again after a crash before its commit
// or after a rebalance) against real Apache Kafka brokers. The checks are package realcheck's; this package runs them in
// a test binary of its own so that go test runs it beside the families.
package causes

import (
	"testing"

	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/realcheck"
)

func TestMain(m *testing.M) { clitest.Main(m) }

// TestRealKafkaCauses runs the scenarios of the causes beyond a restart
// and holds dups to their truth.
func TestRealKafkaCauses(t *testing.T) { realcheck.RunCauses(t) }
