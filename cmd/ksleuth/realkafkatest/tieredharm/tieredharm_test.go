// Package tieredharm checks ksleuth against real Apache Kafka brokers
// with tiered storage on, where the remote store lost data: segments
// deleted or cut by hand, and remote retention
// (realcheck.Families["tieredharm"]).
package tieredharm

import (
	"testing"

	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/realcheck"
)

func TestMain(m *testing.M) { clitest.Main(m) }

func TestRealKafkaTieredHarm(t *testing.T) { realcheck.RunTiered(t, "tieredharm") }
