package enginetest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	jsonl "github.com/ksleuth/ksleuth/analysis/report/json"
)

// TestDuplicatesSQLDuckDB runs analysis/sql/duplicates.sql on DuckDB over
// the sharded records tables and compares its groups, members, classes
// and reference copies with ksleuth's. In CI (.ci/run sets
// KSLEUTH_REQUIRE_DUCKDB) a missing DuckDB fails the test.
func TestDuplicatesSQLDuckDB(t *testing.T) {
	t.Parallel()
	node, nodeModules := needDuckDB(t)
	shards := dupShards(t)
	outs := scanShards(t, shards)
	for _, opts := range [][]string{nil, {"--ignore-header", "trace-id"}} {
		dirs := outs
		if opts != nil {
			dirs = scanShards(t, shards, opts...)
		}
		want := dupsMemberLines(t, dirs)
		args := []string{filepath.Join("testdata", "duckdb_groups.cjs"), filepath.Join("duplicates.sql")}
		for _, d := range dirs {
			args = append(args, filepath.Join(d, tableRecords))
		}
		got := runNode(t, node, nodeModules, filepath.Join("..", "..", "..", "analysis", "sql"), args...)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%v: duplicates.sql on DuckDB differs from ksleuth (%d vs %d rows):\n%s", opts, len(got), len(want), firstDiff(want, got))
		}
		t.Logf("%v: %d member rows identical", opts, len(got))
	}
}

// dupsMemberLines is `dups --json --from-tables` over dirs, one sqlLine
// per member of each group, in its order.
func dupsMemberLines(t *testing.T, dirs []string) []string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(runOK(t, append([]string{"dups", "--json", "--from-tables"}, dirs...)...)), "\n") {
		if strings.HasPrefix(l, `{"type":"summary"`) {
			continue
		}
		var g jsonl.DupGroup
		if err := json.Unmarshal([]byte(l), &g); err != nil {
			t.Fatal(err)
		}
		for _, m := range g.Members {
			lines = append(lines, sqlLine(&m))
		}
	}
	return lines
}

// sqlLine renders a member as duckdb_groups.cjs prints it.
func sqlLine(m *analysis.DuplicateRow) string {
	opt := func(v any) string {
		switch p := v.(type) {
		case *int64:
			if p != nil {
				return fmt.Sprint(*p)
			}
		case *int32:
			if p != nil {
				return fmt.Sprint(*p)
			}
		case *string:
			if p != nil {
				return *p
			}
		}
		return ""
	}
	return strings.Join([]string{fmt.Sprint(m.GroupID), m.Fingerprint, m.Source, m.Topic, fmt.Sprint(m.Partition), fmt.Sprint(m.Offset),
		fmt.Sprint(m.ProducerID), fmt.Sprint(m.ProducerEpoch), fmt.Sprint(m.Sequence), opt(m.Timestamp), fmt.Sprint(m.Occurrence),
		m.Class, m.TxnState, fmt.Sprint(m.Damaged), opt(m.RefTopic), opt(m.RefPartition), opt(m.RefOffset), opt(m.RefProducerID)}, "|")
}
