// Package groups checks ksleuth against real Apache Kafka brokers on
// consumer groups, on one broker and across an unclean election
// (consumer-groups, unclean-election). The checks are package
// realcheck's; this package runs its family of scenarios, in a test
// binary of its own so that go test runs it beside the other families.
package groups

import (
	"testing"

	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/realcheck"
)

func TestMain(m *testing.M) { clitest.Main(m) }

// TestRealKafka runs each scenario of the family once and checks ksleuth
// on what the brokers wrote.
func TestRealKafka(t *testing.T) { realcheck.RunFamily(t, "groups") }
