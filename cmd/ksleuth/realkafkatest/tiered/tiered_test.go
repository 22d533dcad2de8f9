// Package tiered checks ksleuth against real Apache Kafka brokers with
// tiered storage on: clean tiering, a copy that failed midway and a
// deleted tiered topic (realcheck.Families["tiered"]), in a test binary
// of its own so that go test runs it beside the other families.
package tiered

import (
	"testing"

	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/realcheck"
)

func TestMain(m *testing.M) { clitest.Main(m) }

func TestRealKafkaTiered(t *testing.T) { realcheck.RunTiered(t, "tiered") }
