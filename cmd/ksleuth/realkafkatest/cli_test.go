// Package realkafkatest checks ksleuth against real Apache Kafka: what
// brokers wrote, compared with kafka-dump-log and with the ground truth
// of the scenarios of cmd/ksleuth-gen/realkafka. It runs the built
// ksleuth binary (clitest), and is a package of its own so that its
// minutes of brokers do not count against the command package's tests.
package realkafkatest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	jsonl "github.com/ksleuth/ksleuth/analysis/report/json"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
)

const (
	exitOK       = clitest.ExitOK
	exitFindings = clitest.ExitFindings
)

// tableEvents is the cluster timeline's table in a scan's --out.
const tableEvents = export.Events

// sampleDir is the generated sample log dir.
const sampleDir = "../../../testdata/logdirs/generated"

// corpusPath is a corpus beside the checkout ("" when there is none; CI
// requires it).
func corpusPath(t *testing.T, sub string) string {
	dir := filepath.Join("..", "..", "..", "..", "shared", "corpus", sub)
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("corpus %s missing in CI", dir)
		}
		return ""
	}
	return dir
}

// corpusDir holds real brokers' log dirs, beside the checkout.
const corpusDir = "../../../../shared/corpus/real"

// corpusSources names the log dirs of the corpus (the test skips when
// there is none).
func corpusSources(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Skipf("real corpus not available: %v", err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestMain(m *testing.M) {
	code := m.Run()
	clitest.Cleanup()
	os.Exit(code)
}

func scanCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return clitest.Run(t, args...)
}
func mustScan(t *testing.T, args ...string) string { t.Helper(); return clitest.MustRun(t, args...) }
func readTable[T any](t *testing.T, table string) []T {
	t.Helper()
	return clitest.ReadTable[T](t, table)
}

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return clitest.Run(t, args...)
}
func runOK(t *testing.T, args ...string) string { t.Helper(); return clitest.MustRun(t, args...) }
func firstDiff(want, got []string) string       { return clitest.FirstDiff(want, got) }

func dupsJSON(t *testing.T, args ...string) ([]jsonl.DupGroup, pipeline.DupSummary) {
	t.Helper()
	return clitest.DupsJSON(t, args...)
}
