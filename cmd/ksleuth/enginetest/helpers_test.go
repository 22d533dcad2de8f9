// Package enginetest reads the tables of ksleuth scan with the engines
// users read them with (pyarrow, pandas, polars, Spark and DuckDB) and
// runs analysis/sql on them. It runs the built binary (clitest) and is a
// package of its own so that the minutes Spark takes do not count
// against the command package's test timeout.
package enginetest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
)

var update = flag.Bool("update", false, "rewrite the generated parts of docs/tables.md")

// generatedDir is the generated sample log dir.
const generatedDir = "../../../testdata/logdirs/generated"

// tableRecords is the records dataset in a scan's --out.
const tableRecords = export.Records

func TestMain(m *testing.M) {
	code := m.Run()
	clitest.Cleanup()
	os.Exit(code)
}

func mustScan(t *testing.T, args ...string) string { t.Helper(); return clitest.MustRun(t, args...) }
func runOK(t *testing.T, args ...string) string    { t.Helper(); return clitest.MustRun(t, args...) }
func firstDiff(want, got []string) string          { return clitest.FirstDiff(want, got) }

func needDuckDB(t *testing.T) (node, nodeModules string) { t.Helper(); return clitest.NeedDuckDB(t) }

func runNode(t *testing.T, node, nodeModules, dir string, args ...string) []string {
	t.Helper()
	return clitest.RunNode(t, node, nodeModules, dir, args...)
}

// dupShards is clitest.DupShards: the scenarios in three shards.
func dupShards(t *testing.T) [3][]string { t.Helper(); return clitest.DupShards(t) }

// scanShards scans each shard into its own output dir.
func scanShards(t *testing.T, shards [3][]string, extra ...string) []string {
	t.Helper()
	var outs []string
	for i, s := range shards {
		out := filepath.Join(t.TempDir(), fmt.Sprintf("shard-%d", i))
		mustScan(t, append(append([]string{"scan", "--records", "--progress", "never", "--out", out}, extra...), s...)...)
		outs = append(outs, out)
	}
	return outs
}
