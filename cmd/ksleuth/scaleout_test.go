package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	jsonl "github.com/ksleuth/ksleuth/analysis/report/json"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
)

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

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := scanCmd(t, args...)
	if code != exitOK {
		t.Fatalf("ksleuth %v: exit %d\n%s\n%s", args, code, out, errs)
	}
	return out
}

// groupLines are the --json group lines of a dups run (the summary's
// spill figures depend on --mem, so it is compared separately).
func groupLines(t *testing.T, out string) (groups []string, summary pipeline.DupSummary) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, `{"type":"summary"`) {
			if err := json.Unmarshal([]byte(l), &summary); err != nil {
				t.Fatal(err)
			}
			continue
		}
		groups = append(groups, l)
	}
	return groups, summary
}

// TestDupsFromTablesShards: three shards scanned apart and merged with
// dups --from-tables give exactly the groups (members, classes,
// explanations, input numbers, sources) of one run over all the inputs,
// at any memory budget.
func TestDupsFromTablesShards(t *testing.T) {
	t.Parallel()
	shards := dupShards(t)
	all := append(append(append([]string{}, shards[0]...), shards[1]...), shards[2]...)
	outs := scanShards(t, shards)

	single := runOK(t, append([]string{"dups", "--json", "--progress", "never"}, all...)...)
	want, wantSum := groupLines(t, single)
	if len(want) < 40 {
		t.Fatalf("only %d groups in the scenarios", len(want))
	}
	for _, mem := range []string{"512MiB", "4KiB"} {
		merged := runOK(t, append([]string{"dups", "--json", "--from-tables", "--mem", mem, "--tmp", t.TempDir()}, outs...)...)
		got, gotSum := groupLines(t, merged)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("--mem %s: merged groups differ from one scan of everything:\n%s", mem, firstDiff(want, got))
		}
		if mem == "4KiB" && gotSum.SpillFiles == 0 {
			t.Errorf("--mem 4KiB did not spill")
		}
		gotSum.SpillFiles, gotSum.SpillBytes = wantSum.SpillFiles, wantSum.SpillBytes
		if gotSum.Records != wantSum.Records || gotSum.Groups != wantSum.Groups || gotSum.Duplicates != wantSum.Duplicates ||
			gotSum.Findings != wantSum.Findings || fmt.Sprint(gotSum.ByClass) != fmt.Sprint(wantSum.ByClass) {
			t.Errorf("--mem %s: summary %+v, want %+v", mem, gotSum, wantSum)
		}
	}

	// The scan's own duplicates table of everything agrees too.
	out := filepath.Join(t.TempDir(), "all")
	mustScan(t, append([]string{"scan", "--progress", "never", "--out", out}, all...)...)
	var fromTable []string
	var group []analysis.DuplicateRow
	flush := func() {
		if len(group) > 0 {
			b, _ := json.Marshal(jsonl.DupGroup{Type: "group", GroupID: group[0].GroupID, Fingerprint: group[0].Fingerprint, Members: group})
			fromTable = append(fromTable, string(b))
		}
		group = nil
	}
	for _, r := range readTable[analysis.DuplicateRow](t, filepath.Join(out, tableDups)) {
		if len(group) > 0 && r.GroupID != group[0].GroupID {
			flush()
		}
		group = append(group, r)
	}
	flush()
	if strings.Join(fromTable, "\n") != strings.Join(want, "\n") {
		t.Errorf("duplicates.parquet of one scan differs from dups:\n%s", firstDiff(want, fromTable))
	}

	// Shards in another order: the same groups, only the input numbers
	// (the order of the DIRs) change.
	rev := runOK(t, "dups", "--json", "--from-tables", outs[2], outs[0], outs[1])
	got, _ := groupLines(t, rev)
	if len(got) != len(want) {
		t.Fatalf("reordered shards: %d groups, want %d", len(got), len(want))
	}
	for i := range got {
		if stripInputs(got[i]) != stripInputs(want[i]) {
			t.Fatalf("reordered shards: group %d differs:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
}

func stripInputs(s string) string {
	for i := range 256 {
		s = strings.ReplaceAll(s, fmt.Sprintf(`"input":%d,`, i), `"input":_,`)
	}
	return s
}

func firstDiff(want, got []string) string { return clitest.FirstDiff(want, got) }

// TestDupsFromTablesFingerprintOptions: the --match/--ignore-header of the
// scans are read from the tables; other flags, or shards scanned with
// different options, are usage errors.
func TestDupsFromTablesFingerprintOptions(t *testing.T) {
	t.Parallel()
	shards := dupShards(t)
	all := append(append(append([]string{}, shards[0]...), shards[1]...), shards[2]...)
	outs := scanShards(t, shards, "--ignore-header", "trace-id")

	single := runOK(t, append([]string{"dups", "--json", "--progress", "never", "--ignore-header", "trace-id"}, all...)...)
	want, _ := groupLines(t, single)
	plain, _ := groupLines(t, runOK(t, append([]string{"dups", "--json", "--progress", "never"}, all...)...))
	if len(want) == len(plain) {
		t.Fatalf("--ignore-header trace-id changes nothing in the scenarios (%d groups)", len(want))
	}
	for _, args := range [][]string{nil, {"--ignore-header", "trace-id"}, {"--match", "value,headers,key", "--ignore-header", "trace-id"}} {
		merged := runOK(t, append(append([]string{"dups", "--json", "--from-tables"}, args...), outs...)...)
		got, _ := groupLines(t, merged)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%v: merged groups differ:\n%s", args, firstDiff(want, got))
		}
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--match", "key"}, "differs from the scans' --match key,value,headers, --ignore-header trace-id"},
		{[]string{"--ignore-header", "other"}, "--ignore-header other differs"},
		{nil, "scan all shards with the same --match and --ignore-header"},
	} {
		dirs := outs
		if tc.args == nil {
			other := scanShards(t, shards)
			dirs = []string{outs[0], other[1]}
		}
		out, errs, code := scanCmd(t, append(append([]string{"dups", "--from-tables"}, tc.args...), dirs...)...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q\n%s", tc.args, code, errs, exitUsage, tc.want, out)
		}
	}

	// A scan without --records, and the same input in two shards.
	norec := filepath.Join(t.TempDir(), "norec")
	mustScan(t, "scan", "--progress", "never", "--out", norec, shards[0][0])
	for _, dirs := range [][]string{{norec}, {outs[0], outs[0]}} {
		_, errs, code := scanCmd(t, append([]string{"dups", "--from-tables"}, dirs...)...)
		if code != exitUsage || !strings.Contains(errs, "--records") && !strings.Contains(errs, "appears in both") {
			t.Errorf("%v: exit %d, stderr %q", dirs, code, errs)
		}
	}
}
