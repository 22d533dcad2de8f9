package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	jsonl "github.com/ksleuth/ksleuth/analysis/report/json"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// dupsJSON runs `ksleuth dups --json` and returns the groups and summary.
func dupsJSON(t *testing.T, args ...string) ([]jsonl.DupGroup, pipeline.DupSummary) {
	t.Helper()
	return dupsJSONWith(t, defaultSettings(), args...)
}

func dupsJSONWith(t *testing.T, set *settings, args ...string) ([]jsonl.DupGroup, pipeline.DupSummary) {
	t.Helper()
	out, errs, code := runCLIWith(t, set, append([]string{"dups", "--json", "--progress", "never"}, args...)...)
	if code != exitOK {
		t.Fatalf("ksleuth dups %v: exit %d\n%s\n%s", args, code, out, errs)
	}
	var groups []jsonl.DupGroup
	var sum pipeline.DupSummary
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var probe struct{ Type string }
		if err := json.Unmarshal(sc.Bytes(), &probe); err != nil {
			t.Fatal(err)
		}
		switch probe.Type {
		case "group":
			var g jsonl.DupGroup
			if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
				t.Fatal(err)
			}
			groups = append(groups, g)
		case "summary":
			if err := json.Unmarshal(sc.Bytes(), &sum); err != nil {
				t.Fatal(err)
			}
		}
	}
	return groups, sum
}

// groupKey renders a group as "topic-p@o[damaged]/topic-p@o:class/...".
func groupKey(ms []analysis.DuplicateRow) string {
	var parts []string
	for _, m := range ms {
		s := fmt.Sprintf("%s-%d@%d", m.Topic, m.Partition, m.Offset)
		if m.Class != "" {
			s += ":" + m.Class
		}
		if m.Evidence != "" {
			s += "/" + m.Evidence
		}
		if m.Damaged {
			s += "[damaged]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func truthKey(topic string, g segtest.DupGroup) string {
	var parts []string
	for _, m := range g.Members {
		s := fmt.Sprintf("%s-%d@%d", topic, m.Partition, m.Offset)
		if m.Class != "" {
			s += ":" + m.Class
		}
		if m.Evidence != "" {
			s += "/" + m.Evidence
		}
		if m.Damaged {
			s += "[damaged]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func genDupScenarios(t *testing.T) (string, *segtest.DupTruth) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "logdir")
	truth, err := segtest.GenerateDupScenarios(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	return dir, truth
}

// TestDupsScenarios checks every generated scenario for precision and
// recall 1.0 on the flagged records, for exact grouping and for the class
// of every later copy, under the options each group needs.
func TestDupsScenarios(t *testing.T) {
	t.Parallel()
	dir, truth := genDupScenarios(t)
	runs := []struct {
		name  string
		args  []string
		needs map[string]bool
	}{
		{"default", nil, map[string]bool{"": true}},
		{"same-pid", []string{"--same-pid"}, map[string]bool{"": true, "same-pid": true}},
		{"ignore-header", []string{"--ignore-header", "trace-id"}, map[string]bool{"": true, "ignore-header=trace-id": true}},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			groups, sum := dupsJSON(t, append([]string{dir}, r.args...)...)
			for _, sc := range truth.Scenarios {
				t.Run(sc.Topic, func(t *testing.T) {
					var want, got []string
					wantRecs, gotRecs := map[string]bool{}, map[string]bool{}
					for _, g := range sc.Groups {
						if r.needs[g.Needs] {
							want = append(want, truthKey(sc.Topic, g))
							for _, m := range g.Members {
								wantRecs[fmt.Sprintf("%d@%d", m.Partition, m.Offset)] = true
							}
						}
					}
					for _, g := range groups {
						if g.Members[0].Topic == sc.Topic {
							got = append(got, groupKey(g.Members))
							for _, m := range g.Members {
								gotRecs[fmt.Sprintf("%d@%d", m.Partition, m.Offset)] = true
							}
						}
					}
					tp := 0
					for k := range gotRecs {
						if wantRecs[k] {
							tp++
						}
					}
					if tp != len(gotRecs) || tp != len(wantRecs) {
						t.Errorf("flagged records: precision %d/%d, recall %d/%d", tp, len(gotRecs), tp, len(wantRecs))
					}
					slices.Sort(want)
					slices.Sort(got)
					if !slices.Equal(want, got) {
						t.Errorf("groups differ\nwant:\n  %s\ngot:\n  %s", strings.Join(want, "\n  "), strings.Join(got, "\n  "))
					}
				})
			}
			if sum.Groups != int64(len(groups)) {
				t.Errorf("summary says %d groups, %d listed", sum.Groups, len(groups))
			}
		})
	}
}

// TestDupsExplanations pins the wording of a few explanations and the
// run lines of the text report.
func TestDupsExplanations(t *testing.T) {
	t.Parallel()
	dir, _ := genDupScenarios(t)
	out, errs, code := scanCmd(t, "dups", "--all", "--progress", "never", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	out = unwrap(out)
	for _, want := range []string{
		"resends and retries: 159 with strong evidence, 18 possible (a new session repeated content, but the bytes do not show a resend)",
		"orders-0: PID 1002 (epoch 0) resent 10 records first written by PID 1001 — offsets 50–59 repeat 40–49, written 0.0 s into PID 1002's session, which began 2.1 s after PID 1001's last write [restart-resend, strong evidence]",
		"orders-0: PID 1003 (epoch 0) resent 15 records first written by PID 1002 — offsets 70–84 repeat 55–69, written 0.0 s into PID 1003's session, which began 1.6 s after PID 1002's last write [restart-resend, strong evidence]",
		"clicks-1: PID 1102 (epoch 0) resent 4 records first written by PID 1101 in clicks-0 — offsets",
		"payments-0: PID 2002 (epoch 0) retried 6 records of an aborted transaction of PID 2001 — offsets 6–11 repeat 0–5, 5.2 s later, 0.0 s into PID 2002's session [txn-retry, strong evidence]",
		"payments-fenced-0: PID 2101 (epoch 1) retried 4 records of its own aborted transaction — offsets 5–8 repeat 0–3, 3.2 s later, 0.0 s into PID 2101's session [txn-retry, strong evidence]",
		"heartbeats-0: PID 4002 (epoch 0) wrote 1 record already written by PID 4001 — offset 7 repeats 0, 3h00m later, 0.0 s into PID 4002's session [repeat]",
		"corrupt-0: PID 8002 (epoch 0) resent 3 records first written by PID 8001 — offsets 9–11 repeat 6–8",
		"late-0: PID 9502 (epoch 0) possibly resent 4 records first written by PID 9501 — offsets 80–83 repeat 16–19, written 4m01s into PID 9502's session, which began 3.1 s after PID 9501's last write [possible restart-resend: not the session's head]",
		"console-0: PID 9302 (epoch 0) possibly resent 1 record first written by PID 9301 — offset 3 repeats 2, written 0.0 s into PID 9302's session, which began 5m04s after PID 9301's last write [possible restart-resend: too few records]",
		"startup-0: PID 9104 (epoch 0) possibly resent 1 record first written by PID 9103 — offset 3 repeats 2, written 0.0 s into PID 9104's session, which began 20.1 s after PID 9103's last write [possible restart-resend: too few records, content new sessions write]",
		"  restart-resend     133      140     130        10",
		"           total     174      186     159        18",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q\n%s", want, out)
		}
	}
	// Every explanation gives the copy's own timing, and a graded copy
	// its grade with the reasons.
	for topic, want := range map[string]string{
		"late": "PID 9502 (epoch 0) wrote late-0@81 again (written 4m04s after the earlier copy, 4m01s into PID 9502's session in late-0), first written by PID 9501 (epoch 0) at late-0@17; " +
			"PID 9502's session in late-0 began 3.1 s after PID 9501's last write there; possible restart-resend only, not strong: " +
			"not the head of PID 9502's session in late-0: 60 records of its own came before the run there",
		"orders": "PID 1002 (epoch 0) wrote orders-0@50 again (written 2.2 s after the earlier copy, 0.0 s into PID 1002's session in orders-0), first written by PID 1001 (epoch 0) at orders-0@40; " +
			"PID 1002's session in orders-0 began 2.1 s after PID 1001's last write there; strong evidence: PID 1002's session in orders-0 began 2.1 s after PID 1001's last write; " +
			"a run of 10 records repeating PID 1001's in order, the tail of its session, and the head of PID 1002's",
		"console": "possible restart-resend only, not strong: a run of one record: one record written again reads the same whether it was resent or written anew",
	} {
		groups, _ := dupsJSON(t, dir, "--topic", "^"+topic+"$")
		found := false
		for _, g := range groups {
			for _, m := range g.Members {
				found = found || strings.Contains(m.Explanation, want)
			}
		}
		if !found {
			t.Errorf("%s: no explanation with %q (%d groups)", topic, want, len(groups))
		}
	}
	groups, _ := dupsJSON(t, dir, "--topic", "^corrupt$")
	if len(groups) == 0 || !strings.Contains(groups[0].Members[1].Explanation, "the earlier copy is in a damaged batch") {
		t.Errorf("corrupt: explanation does not mention the damaged first copy: %+v", groups)
	}
	_, _, code = scanCmd(t, "dups", "--fail-on-findings", "--progress", "never", dir)
	if code != exitFindings {
		t.Errorf("--fail-on-findings: exit %d, want %d", code, exitFindings)
	}
}

// TestDupsSpill forces spilling (several levels) and compares the groups
// with the in-memory run, with --same-pid and without (retries and dedup
// failures are grouped without it); the spill directory must be gone
// afterwards.
func TestDupsSpill(t *testing.T) {
	t.Parallel()
	dir, _ := genDupScenarios(t)
	for _, extra := range [][]string{{"--same-pid"}, nil, {"--pipeline", segtest.ReprocessHint, "--pipeline", segtest.RebalanceHint}} {
		mem, _ := dupsJSON(t, append([]string{dir}, extra...)...)
		for _, budget := range []string{"4KiB", "9KiB"} {
			tmp := t.TempDir()
			spilled, sum := dupsJSON(t, append([]string{dir, "--mem", budget, "--tmp", tmp}, extra...)...)
			if sum.SpillFiles == 0 {
				t.Fatalf("--mem %s %v: nothing spilled", budget, extra)
			}
			a, _ := json.Marshal(mem)
			b, _ := json.Marshal(spilled)
			if string(a) != string(b) {
				t.Errorf("--mem %s %v: groups differ from the in-memory run", budget, extra)
			}
			if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
				t.Errorf("--mem %s %v: %d entries left in --tmp", budget, extra, len(ents))
			}
		}
	}
}

// TestDupsCauses: on the scenarios' log dir, where every cause is
// mixed, dups prints one table of the causes by evidence grade, and the
// run lines and explanations of retries and dedup failures say what
// they rest on; an application's resend by PID -1 says why it is not a
// retry.
func TestDupsCauses(t *testing.T) {
	t.Parallel()
	dir, _ := genDupScenarios(t)
	out, errs, code := scanCmd(t, "dups", "--limit", "0", "--progress", "never", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	out = unwrap(out)
	for _, want := range []string{
		"           CLASS  GROUPS  RECORDS  STRONG  POSSIBLE\n" +
			"  restart-resend     133      140     130        10\n" +
			"       reprocess       2        2       0         2\n" +
			"       rebalance       4        4       0         4\n" +
			"       txn-retry      10       10      10         0\n" +
			"           retry      17       17      16         1\n" +
			"   dedup-failure       4        4       3         1\n" +
			"          repeat       4        9       -         -\n" +
			"           total     174      186     159        18\n",
		"rp-out-0: PID 9912 (epoch 0) possibly re-produced 2 records first written by PID 9911, its consumer group having re-read their input — " +
			"offsets 10–11 repeat 8–9, written 0.0 s into PID 9912's session, which began 3.2 s after PID 9911's last write [possible reprocess: link inferred]",
		"zb-out-0: PID 9961 (epoch 0) possibly wrote 4 records already written by PID 9962, both members of a consumer group that moved their input — " +
			"offsets 12–15 repeat 8–11, 0.2 s later, 5.7 s into PID 9961's session [possible rebalance: link inferred]",
		"retried-0: a non-idempotent producer (PID -1) retried 8 records with their first copies' timestamps — offsets 30–37 repeat 10–17 [retry, strong evidence]",
		"retried-0: a non-idempotent producer (PID -1) possibly retried 1 record with their first copies' timestamps — offset 48 repeats 46 [possible retry: too few records]",
		"dedup-synthetic-0: PID 9801 (epoch 0) wrote 3 records twice under the same sequence numbers, which the broker appended again — offsets 9–11 repeat 6–8 [dedup-failure, strong evidence]",
		"dedup-synthetic-1: PID 9802 (epoch 0) wrote 1 record twice under the same sequence numbers, which the broker appended again — offset 1 repeats 0 [possible dedup-failure: other timestamps]",
	} {
		if !strings.Contains(out, want) && !strings.Contains(unwrap(out), want) {
			t.Errorf("report lacks %q\n%s", want, out)
		}
	}
	for _, c := range []struct {
		topic string
		args  []string
		want  string
	}{
		{"retried", nil, "a non-idempotent producer (PID -1) wrote retried-0@38 again (written 0.0 s after the earlier copy), first written by a non-idempotent producer (PID -1) at retried-0@20; " +
			"the same timestamp, 18 offsets later in the same partition: a retry of a producer without idempotence; strong evidence: a run of 16 records with the timestamps of their first copies, in their order, " +
			"18 to 20 offsets later in retried-0: a producer without idempotence sent the batch again after its request failed or timed out, and the broker had appended it the first time"},
		{"retried", []string{"--same-pid"}, "not a restart: PID -1 (no idempotence) wrote it twice, and not as a retry: with timestamps"},
		{"retried", []string{"--same-pid"}, "not a restart: PID -1 (no idempotence) wrote it twice, and not as a retry: in the same batch (a retry is a batch of its own: the application sent it twice)"},
		{"dedup-synthetic", nil, "strong evidence: PID 9801 (epoch 0) wrote sequence 6 in dedup-synthetic-0 twice, at offsets 6 and 9, with the same timestamp: " +
			"the broker appended a batch it should have rejected as a duplicate"},
		{"rp-out", nil, "a reprocess by consumer group rp-app after a crash: PID 9912's session in rp-out-0 began 3.2 s after PID 9911's last write, and the group, " +
			"reading rp-in, went from generation 1 to 2 between them, re-reading from its last commit (rp-in-0 offsets 8 to 9); possible reprocess only, not strong: " +
			"that group rp-app, reading rp-in, writes rp-out is inferred from the timing of its generations"},
		{"zb-out", nil, "a rebalance zombie in consumer group zb-app: PID 9962 and PID 9961 wrote concurrently, and the group, reading zb-in, " +
			"went from generation 1 to 2, member zb-app-a leaving before this copy; its new owner re-read from the last commit (zb-in-0 offsets 4 to 7, zb-in-1 from offset 4)"},
		{"rp-out", []string{"--pipeline", segtest.ReprocessHint}, "strong evidence: group rp-app went from generation 1 to 2 at 2023-11-15T04:26:53Z, " +
			"member rp-app-1-0001 (client rp-app-1, host /10.0.0.1) leaving; its new generation re-read rp-in-0 offsets 8 to 9"},
		{"zb-out", []string{"--pipeline", segtest.RebalanceHint}, "strong evidence: group zb-app went from generation 1 to 2 at 2023-11-15T04:26:59Z, " +
			"member zb-app-a-0001 (client zb-app-a, host /10.0.1.1) leaving"},
		{"mixed", nil, "not a reprocess or rebalance: the producers show neither a restart nor concurrent sessions"},
	} {
		groups, _ := dupsJSON(t, append([]string{dir, "--topic", "^" + c.topic + "$"}, c.args...)...)
		found := false
		for _, g := range groups {
			for _, m := range g.Members {
				found = found || strings.Contains(m.Explanation, c.want)
			}
		}
		if !found {
			t.Errorf("%s %v: no explanation with %q (%d groups)", c.topic, c.args, c.want, len(groups))
		}
	}
}

// TestScanDupTables: scan writes duplicates.parquet with the same rows
// `dups --json` lists, and producers.parquet with one row per session.
func TestScanDupTables(t *testing.T) {
	t.Parallel()
	dir, _ := genDupScenarios(t)
	out := filepath.Join(t.TempDir(), "out")
	mustScan(t, "scan", dir, "--out", out, "--progress", "never")
	groups, _ := dupsJSON(t, dir)
	var want []analysis.DuplicateRow
	for _, g := range groups {
		want = append(want, g.Members...)
	}
	got := readTable[analysis.DuplicateRow](t, filepath.Join(out, tableDups))
	a, _ := json.Marshal(want)
	b, _ := json.Marshal(got)
	if string(a) != string(b) {
		t.Errorf("duplicates.parquet (%d rows) differs from dups --json (%d members)", len(got), len(want))
	}
	classes := map[string]int{}
	for _, r := range got {
		classes[r.Topic+" "+r.Class]++
	}
	if classes["rp-out reprocess"] != 2 || classes["zb-out rebalance"] != 4 {
		t.Errorf("duplicates.parquet holds %d reprocess copies in rp-out and %d rebalance copies in zb-out, want 2 and 4",
			classes["rp-out reprocess"], classes["zb-out rebalance"])
	}
	prods := readTable[analysis.ProducerRow](t, filepath.Join(out, tableProducers))
	byKey := map[string]analysis.ProducerRow{}
	for _, p := range prods {
		byKey[fmt.Sprintf("%s-%d/%d/%d", p.Topic, p.Partition, p.ProducerID, p.ProducerEpoch)] = p
	}
	for key, want := range map[string]string{
		"orders-0/1001/0":          "0..49 seq 0..49 batches 10 records 50 txn false 0/0",
		"orders-0/1003/0":          "70..89 seq 0..19 batches 4 records 20 txn false 0/0",
		"payments-0/2001/0":        "0..5 seq 0..5 batches 2 records 6 txn true 0/1",
		"payments-0/2002/0":        "6..11 seq 0..5 batches 2 records 6 txn true 1/0",
		"payments-fenced-0/2101/1": "5..8 seq 0..3 batches 1 records 4 txn true 1/1",
	} {
		p, ok := byKey[key]
		got := fmt.Sprintf("%d..%d seq %d..%d batches %d records %d txn %v %d/%d", p.FirstOffset, p.LastOffset, p.FirstSequence,
			p.LastSequence, p.Batches, p.Records, p.IsTransactional, p.Commits, p.Aborts)
		if !ok || got != want {
			t.Errorf("session %s: %s, want %s", key, got, want)
		}
	}
}

// TestDupsHeartbeat: one payload repeated by three producers, 9,000
// records in one group. Its rows come in parts of 4,096 under one
// group_id; with a budget of 64 records the group goes through sorted
// runs on disk, and the parts together equal the in-memory run's.
func TestDupsHeartbeat(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "logs")
	part := filepath.Join(dir, "heartbeats-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	var seg []byte
	off := int64(0)
	for p := range 3 {
		for b := range 100 {
			recs := make([]segtest.Record, 30)
			for i := range recs {
				recs[i] = segtest.Record{TimestampDelta: int64(i), Value: []byte(`{"alive":true}`)}
			}
			seg = append(seg, segtest.Batch{Magic: 2, BaseOffset: off, AutoDeltas: true, FirstTimestamp: 1_700_000_000_000 + off*100,
				Records: recs, Producer: &segtest.Producer{ID: int64(4000 + p), BaseSequence: int32(b * 30)}}.Encode()...)
			off += 30
		}
	}
	if err := os.WriteFile(filepath.Join(part, segtest.SegmentFileName(0)), seg, 0o644); err != nil {
		t.Fatal(err)
	}
	merge := func(groups []jsonl.DupGroup) map[int64][]analysis.DuplicateRow {
		m := map[int64][]analysis.DuplicateRow{}
		for _, g := range groups {
			m[g.GroupID] = append(m[g.GroupID], g.Members...)
		}
		return m
	}
	inMem, sum := dupsJSON(t, dir)
	tmp := t.TempDir()
	spilled, sum2 := dupsJSON(t, dir, "--mem", "4KiB", "--tmp", tmp)
	if sum.Groups != 1 || sum.Duplicates != 8999 || sum2.Groups != 1 || sum2.SpillFiles == 0 {
		t.Fatalf("summaries: %+v / %+v", sum, sum2)
	}
	if len(inMem) != 3 || len(spilled) != 3 {
		t.Errorf("the group came in %d and %d parts, want 3 (4,096 rows each at most)", len(inMem), len(spilled))
	}
	a, _ := json.Marshal(merge(inMem))
	b, _ := json.Marshal(merge(spilled))
	if string(a) != string(b) {
		t.Error("the spilled group differs from the in-memory one")
	}
	if m := merge(inMem)[1]; len(m) != 9000 || m[0].Occurrence != 1 || m[8999].Occurrence != 9000 || !strings.Contains(m[0].Explanation, "8999 later copies by PID 4001, 4002") {
		t.Errorf("members: %d, first explanation %q", len(m), m[0].Explanation)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("%d entries left in --tmp", len(ents))
	}
}

// TestDupsRunsSpill: the runs of the text report and the totals of the
// --json summary are the same when the report sorts its later copies on
// disk (a budget of a few dozen copies) as in memory, and nothing is left
// in --tmp.
func TestDupsRunsSpill(t *testing.T) {
	t.Parallel()
	dir, _ := genDupScenarios(t)
	args := []string{"dups", "--progress", "never", "--same-pid", "--all", dir}
	memText, _, code := scanCmd(t, args...)
	_, memSum := dupsJSON(t, dir, "--same-pid")
	if code != exitFindings && code != exitOK || memSum.Runs < 10 || memSum.SpillFiles != 0 {
		t.Fatalf("exit %d, summary %+v", code, memSum)
	}
	set := defaultSettings()
	set.runBudget = 4000
	tmp := t.TempDir()
	text, _, _ := runCLIWith(t, set, append(args, "--tmp", tmp)...)
	_, sum := dupsJSONWith(t, set, dir, "--same-pid", "--tmp", tmp)
	if sum.SpillFiles == 0 || sum.SpillBytes == 0 {
		t.Fatalf("nothing spilled: %+v", sum)
	}
	spillLine := regexp.MustCompile(`\n\(spilled \d+ bytes to \d+ temporary files?, since removed\)\n`)
	if !spillLine.MatchString(text) {
		t.Errorf("no spill line in:\n%s", text)
	}
	if got := spillLine.ReplaceAllString(text, "\n"); got != memText+"\n" {
		t.Errorf("text differs when the runs spill:\n%s\n--- in memory:\n%s", got, memText)
	}
	sum.SpillFiles, sum.SpillBytes = 0, 0
	a, _ := json.Marshal(memSum)
	b, _ := json.Marshal(sum)
	if string(a) != string(b) {
		t.Errorf("summary differs:\n%s\n%s", a, b)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("%d entries left in --tmp", len(ents))
	}
	// --limit cuts the list, not the count.
	limited, _, _ := scanCmd(t, "dups", "--progress", "never", "--same-pid", "--all", "--limit", "3", dir)
	runLine := regexp.MustCompile(`(?m)^\S+-\d+: .* \[(restart-resend|txn-retry|retry|dedup-failure|repeat|possible [^\]]+)(, strong evidence)?\]$`)
	if n, all := len(runLine.FindAllString(unwrap(limited), -1)), runLine.FindAllString(unwrap(memText), -1); n != 3 || len(all) != memSum.Runs {
		t.Errorf("--limit 3 printed %d runs, --all %d of %d", n, len(all), memSum.Runs)
	}
	if !strings.Contains(limited, fmt.Sprintf("... %d more runs", memSum.Runs-3)) {
		t.Errorf("no '... more' line:\n%s", limited)
	}
}
