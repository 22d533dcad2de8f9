package enginecheck

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/export"
	jsonl "github.com/ksleuth/ksleuth/analysis/report/json"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
)

// ScanShards scans each shard into an output dir of its own and returns
// the dirs.
func ScanShards(t testing.TB, shards [3][]string, extra ...string) []string {
	t.Helper()
	var outs []string
	for i, s := range shards {
		out := filepath.Join(t.TempDir(), fmt.Sprintf("shard-%d", i))
		clitest.MustRun(t, append(append([]string{"scan", "--records", "--progress", "never", "--out", out}, extra...), s...)...)
		outs = append(outs, out)
	}
	return outs
}

// RecordsOf is the records dataset of each scan output dir.
func RecordsOf(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		out = append(out, filepath.Join(d, export.Records))
	}
	return out
}

// DupsMemberLines is `dups --json --from-tables` over dirs, one line per
// member of each group, in its order, as the SQL scripts print them.
func DupsMemberLines(t testing.TB, dirs []string) []string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(clitest.MustRun(t, append([]string{"dups", "--json", "--from-tables"}, dirs...)...)), "\n") {
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

// sqlLine renders a member as duckdb_groups.cjs and spark_groups.py
// print it.
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
		sqlClass(m), m.TxnState, fmt.Sprint(m.Damaged), opt(m.RefTopic), opt(m.RefPartition), opt(m.RefOffset), opt(m.RefProducerID)}, "|")
}

// sqlClass is the class duplicates.sql gives m: it reads no consumer
// offsets, so a reprocess is the restart-resend the producers show, and
// a rebalance the repeat of concurrent producers, or the restart-resend
// of a zombie whose successor wrote after it.
func sqlClass(m *analysis.DuplicateRow) string {
	switch {
	case m.Class == dups.ClassReprocess:
		return dups.ClassRestartResend
	case m.Class == dups.ClassRebalance && strings.Contains(m.Explanation, dups.ConcurrentWords):
		return dups.ClassRepeat
	case m.Class == dups.ClassRebalance:
		return dups.ClassRestartResend
	}
	return m.Class
}
