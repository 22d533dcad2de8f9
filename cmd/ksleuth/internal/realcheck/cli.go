package realcheck

import (
	"testing"

	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	jsonl "github.com/ksleuth/ksleuth/analysis/report/json"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
)

// The checks run the built ksleuth binary through clitest, as a user
// runs it; these short names keep them readable.

const (
	exitOK       = clitest.ExitOK
	exitFindings = clitest.ExitFindings
)

// tableEvents is the cluster timeline's table in a scan's --out.
const tableEvents = export.Events

func scanCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return clitest.Run(t, args...)
}

func readTable[T any](t *testing.T, table string) []T {
	t.Helper()
	return clitest.ReadTable[T](t, table)
}

func dupsJSON(t *testing.T, args ...string) ([]jsonl.DupGroup, pipeline.DupSummary) {
	t.Helper()
	return clitest.DupsJSON(t, args...)
}
