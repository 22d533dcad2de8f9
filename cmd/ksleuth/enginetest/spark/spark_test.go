// Package spark reads ksleuth's tables with Spark in local mode (pyspark)
// and runs analysis/sql on them. Spark's JVM takes most of the engine
// suites' minutes: it has a package, and a test timeout, of its own.
package spark

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/enginecheck"
)

func TestMain(m *testing.M) { clitest.Main(m) }

func needSpark(t *testing.T) string {
	t.Helper()
	return enginecheck.NeedPython(t, true, "pyspark", "pyarrow")
}

// TestTablesInSpark reads every table of `scan --records --payload` with
// Spark (and pyarrow, the reference, in the same Python process) and
// holds each column to its documented type, every int64 and timestamp
// column's extremes to pyarrow's (a producer id above 2^53 and a
// millisecond timestamp included), and the headers list of structs to
// what was written.
func TestTablesInSpark(t *testing.T) {
	python := needSpark(t)
	out, cols, rows := enginecheck.ScanProbe(t, func(args ...string) { clitest.MustRun(t, args...) })
	enginecheck.CheckPyEngines(t, python, out, cols, rows, "pyarrow", "spark")
}

// TestDuplicatesSQLSpark runs analysis/sql/duplicates.sql in Spark SQL
// (pyspark, local[2]) over the records tables of three sharded scans and
// compares its groups, members, classes and reference copies with
// `ksleuth dups --from-tables` on the same shards, with default
// fingerprints and with --ignore-header. One Spark session answers both.
func TestDuplicatesSQLSpark(t *testing.T) {
	python := needSpark(t)
	shards := clitest.DupShards(t)
	variants := [][]string{nil, {"--ignore-header", "trace-id"}}
	args := []string{filepath.Join("testdata", "spark_groups.py"), "duplicates.sql"}
	var wants [][]string
	for i, opts := range variants {
		dirs := enginecheck.ScanShards(t, shards, opts...)
		want := enginecheck.DupsMemberLines(t, dirs)
		if len(want) == 0 {
			t.Fatalf("%v: ksleuth found no duplicate groups to compare", opts)
		}
		wants = append(wants, want)
		if i > 0 {
			args = append(args, "--")
		}
		args = append(args, enginecheck.RecordsOf(dirs)...)
	}
	got := strings.Split(strings.TrimSpace(string(enginecheck.RunPython(t, python, enginecheck.SQLDir, args...))), "\n--\n")
	if len(got) != len(variants) {
		t.Fatalf("Spark printed %d result sets, want %d", len(got), len(variants))
	}
	for i, opts := range variants {
		g := strings.Split(got[i], "\n")
		if strings.Join(g, "\n") != strings.Join(wants[i], "\n") {
			t.Errorf("%v: duplicates.sql on Spark differs from ksleuth (%d vs %d rows):\n%s", opts, len(g), len(wants[i]), clitest.FirstDiff(wants[i], g))
		}
		t.Logf("%v: %d member rows identical", opts, len(g))
	}
}
