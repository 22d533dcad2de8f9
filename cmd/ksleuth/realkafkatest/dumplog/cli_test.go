// Package dumplog holds ksleuth's dump and tables against kafka-dump-log
// on the real corpus and the sample log dir, with no broker running. It
// runs the built ksleuth binary (clitest); the broker scenarios are the
// other packages under cmd/ksleuth/realkafkatest.
package dumplog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
)

const exitOK = clitest.ExitOK

// sampleDir is the generated sample log dir.
const sampleDir = "../../../../testdata/logdirs/generated"

// corpusPath is a corpus beside the checkout ("" when there is none; CI
// requires it).
func corpusPath(t *testing.T, sub string) string {
	dir := filepath.Join("..", "..", "..", "..", "..", "shared", "corpus", sub)
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("corpus %s missing in CI", dir)
		}
		return ""
	}
	return dir
}

// corpusDir holds real brokers' log dirs, beside the checkout.
const corpusDir = "../../../../../shared/corpus/real"

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

func TestMain(m *testing.M) { clitest.Main(m) }

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
