// Package producers checks ksleuth against real Apache Kafka brokers on
// producers that restart, idempotent and transactional (idempotent-
// restart, transactional), with the runs on the older releases. The
// checks are package realcheck's; this package runs its family of
// scenarios, in a test binary of its own so that go test runs it beside
// the other families.
package producers

import (
	"testing"

	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/realcheck"
)

func TestMain(m *testing.M) { clitest.Main(m) }

// TestRealKafka runs each scenario of the family once and checks ksleuth
// on what the brokers wrote.
func TestRealKafka(t *testing.T) { realcheck.RunFamily(t, "producers") }
