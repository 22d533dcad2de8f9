package html

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

var dataRE = regexp.MustCompile(`(?s)<script type="application/json" id="ksleuth-data">(.*?)</script>`)

func ptr[T any](v T) *T { return &v }

// manySessions is one partition written by n producers in turn, each
// restart resending the last record of the one before.
func manySessions(t *testing.T, n int, topic string) *Run {
	return manySessionsBudget(t, n, topic, dups.DefaultRunBudget)
}

// manySessionsBudget is manySessions with a collector whose runs may hold
// runBudget bytes in memory.
func manySessionsBudget(t *testing.T, n int, topic string, runBudget int64) *Run {
	c := newCollector(t.TempDir(), runBudget)
	t.Cleanup(func() { c.Close() })
	var sessions []analysis.ProducerRow
	dir := topic + "-0"
	for i := range n {
		first := int64(i * 10)
		ts := 1_700_000_000_000 + int64(i)*1000
		sessions = append(sessions, analysis.ProducerRow{Topic: topic, Partition: 0, Dir: dir, ProducerID: int64(1000 + i),
			FirstOffset: first, LastOffset: first + 9, FirstTimestamp: ptr(ts), LastTimestamp: ptr(ts + 900), Records: 10, Batches: 1})
		if i > 0 {
			err := c.Duplicates([]analysis.DuplicateRow{
				{GroupID: int64(i), Topic: topic, Offset: first - 1, ProducerID: int64(999 + i), Timestamp: ptr(ts - 100), Occurrence: 1},
				{GroupID: int64(i), Topic: topic, Offset: first, ProducerID: int64(1000 + i), Timestamp: ptr(ts), Occurrence: 2, Class: "restart-resend",
					Explanation: "resent <b>after</b> a restart", RefTopic: ptr(topic), RefPartition: ptr(int32(0)), RefOffset: ptr(first - 1),
					RefProducerID: ptr(int64(999 + i)), GapMillis: ptr(int64(100))},
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := c.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := &pipeline.Summary{Partitions: []analysis.PartitionSummary{{Topic: topic, Dir: dir, First: ptr(int64(0)), Last: ptr(int64(n*10 - 1))}}}
	return &Run{Version: "test", Generated: time.Unix(0, 0), Inputs: []Input{{Path: "in", Kind: "dir"}}, Summary: res,
		Sessions: sessions, DupStats: dups.Stats{Groups: int64(n - 1), Duplicates: int64(n - 1)}, Collected: c}
}

func render(t *testing.T, r *Run) (string, *Model) {
	t.Helper()
	m := Build(r)
	var b bytes.Buffer
	if err := Write(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.String(), m
}

// TestManySessions: 500 sessions draw 500 lanes, collapsed into few rows,
// and 499 links.
func TestManySessions(t *testing.T) {
	page, m := render(t, manySessions(t, 500, "orders"))
	if p := os.Getenv("KSLEUTH_REPORT_DUMP"); p != "" { // to look at it in a browser
		if err := os.WriteFile(p, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(m.Timelines) != 1 || !m.Timelines[0].Collapsed {
		t.Fatalf("want one collapsed timeline, got %d", len(m.Timelines))
	}
	rows := 0
	for _, s := range m.Timelines[0].Sessions {
		rows = max(rows, s.Row+1)
	}
	if rows != 1 {
		t.Errorf("sessions one after another packed into %d rows, want 1", rows)
	}
	if n := strings.Count(page, `<g class="lane" `); n != 500 {
		t.Errorf("%d lanes, want 500", n)
	}
	if n := strings.Count(page, `<path class="link `); n != 499 {
		t.Errorf("%d links, want 499", n)
	}
	if len(page) > 2<<20 {
		t.Errorf("page of 500 sessions is %d bytes", len(page))
	}
}

// TestHostileNames: names from the input cannot break out of the page
// or its data section.
func TestHostileNames(t *testing.T) {
	evil := `x</script><script>alert(1)</script><img src=x onerror=alert(2)>`
	r := manySessions(t, 3, evil)
	r.Anomalies = []analysis.AnomalyRow{{Kind: "crc-mismatch", Severity: "error", File: evil + "/0.log", Position: ptr(int64(0)), Message: evil}}
	page, _ := render(t, r)
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "<img src=x") {
		t.Fatal("unescaped input in the page")
	}
	if n := strings.Count(page, "<script"); n != 2 {
		t.Errorf("%d script elements, want 2 (data and code)", n)
	}
	mm := dataRE.FindStringSubmatch(page)
	if mm == nil {
		t.Fatal("no data section")
	}
	var back Model
	if err := json.Unmarshal([]byte(mm[1]), &back); err != nil {
		t.Fatal(err)
	}
	if back.Timelines[0].Topic != evil || back.Anomalies[0].Message != evil {
		t.Errorf("data section does not round-trip the names")
	}
	for _, banned := range []string{"http://", "https://", "src=\"//"} {
		for _, line := range strings.Split(page, "\n") {
			if strings.Contains(line, banned) && !strings.Contains(line, "http://www.w3.org/2000/svg") {
				t.Errorf("page refers to the network: %s", line)
				break
			}
		}
	}
}

// TestEmpty: no sessions, no findings, no duplicates still renders.
func TestEmpty(t *testing.T) {
	page, m := render(t, &Run{Generated: time.Unix(0, 0)})
	if !strings.Contains(page, "No findings") || len(m.Timelines) != 0 {
		t.Errorf("empty report wrong")
	}
}

func TestCollectorAbortSpans(t *testing.T) {
	c := NewCollector("")
	rec := func(off int64, state string) analysis.PayloadRecordRow {
		return analysis.PayloadRecordRow{RecordRow: analysis.RecordRow{Segment: "t-0/0.log", Offset: off, ProducerID: 7, TxnState: state}}
	}
	c.Records([]analysis.PayloadRecordRow{rec(0, "committed"), rec(1, "aborted"), rec(2, "aborted"), rec(4, "aborted"), rec(5, "committed"), rec(7, "aborted")})
	got := c.spans[SessionKey{0, "t-0", 7, 0}]
	if len(got) != 2 || got[0].FirstOffset != 1 || got[0].LastOffset != 4 || got[1].FirstOffset != 7 {
		t.Errorf("spans %+v", got)
	}
	c.Batches([]analysis.BatchRow{{Segment: "t-0/0.log", BaseOffset: 6, LastOffset: 6, ProducerID: 7, IsControl: true, ControlType: "ABORT"}})
	if mk := c.markers[SessionKey{0, "t-0", 7, 0}]; len(mk) != 1 || mk[0].Offset != 6 {
		t.Errorf("markers %+v", mk)
	}
}

// TestCollectorSpillSameModel: with a budget of a few dozen copies the
// collector sorts its runs on disk, and the page's model is the one made
// in memory; Close leaves nothing in the temporary directory.
func TestCollectorSpillSameModel(t *testing.T) {
	want, _ := json.Marshal(Build(manySessions(t, 500, "orders")))
	r := manySessionsBudget(t, 500, "orders", 4000)
	got, _ := json.Marshal(Build(r))
	if r.Collected.runs.SpillFiles() == 0 {
		t.Fatal("nothing spilled")
	}
	if string(got) != string(want) {
		t.Error("the model differs when the runs spill")
	}
	m := Build(r)
	if m.RunsTotal != 499 || len(m.Runs) != 499 || m.Runs[0].RefFirstTimestamp == nil || m.Runs[0].Explanation != "resent <b>after</b> a restart" {
		t.Errorf("runs %d of %d, first %+v", len(m.Runs), m.RunsTotal, m.Runs[0])
	}
	tmp := r.Collected.tmpDir
	if err := r.Collected.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in tmp: %v", left)
	}
}

// TestCollectorDatesRefsInLargeGroups: a group of 140,000 members by two
// PIDs in turn, each repeating the one before, comes in parts of 4,096;
// the page knows when every repeated copy was written.
func TestCollectorDatesRefsInLargeGroups(t *testing.T) {
	const n = 140000
	c := NewCollector(t.TempDir())
	defer c.Close()
	var rows []analysis.DuplicateRow
	for k := range int64(n) {
		r := analysis.DuplicateRow{GroupID: 1, Topic: "t", Offset: k, ProducerID: 1 + k%2, Timestamp: ptr(1000 + k), Occurrence: int32(k + 1)}
		if k > 0 {
			r.Class, r.RefTopic, r.RefPartition, r.RefOffset, r.RefProducerID = dups.ClassRepeat, ptr("t"), ptr(int32(0)), ptr(k-1), ptr(1+(k-1)%2)
		}
		rows = append(rows, r)
		if len(rows) == 4096 || k == n-1 {
			if err := c.Duplicates(rows); err != nil {
				t.Fatal(err)
			}
			rows = rows[:0]
		}
	}
	if err := c.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(c.topRuns) != 2 {
		t.Fatalf("%d runs, want one per PID", len(c.topRuns))
	}
	for _, u := range c.topRuns {
		tm := u.Times
		if tm.First == nil || tm.RefFirst == nil || tm.RefLast == nil || tm.Last == nil ||
			*tm.First != 1000+u.First || *tm.Last != 1000+u.Last || *tm.RefFirst != 1000+u.RefFirst || *tm.RefLast != 1000+u.RefLast {
			t.Errorf("run %d–%d repeating %d–%d: times %+v", u.First, u.Last, u.RefFirst, u.RefLast, tm)
		}
	}
}

// TestEvidenceShown: the page separates strong from possible resends, in
// the facts, the runs table and the per-topic totals.
func TestEvidenceShown(t *testing.T) {
	c := NewCollector(t.TempDir())
	t.Cleanup(func() { c.Close() })
	const topic = "orders"
	row := func(g, off int64, pid int64, k int32, evidence string, why uint16) analysis.DuplicateRow {
		r := analysis.DuplicateRow{GroupID: g, Topic: topic, Offset: off, ProducerID: pid, Timestamp: ptr(1_700_000_000_000 + off), Occurrence: k}
		if k > 1 {
			r.Class, r.Evidence, r.EvidenceWhy = "restart-resend", evidence, why
			r.RefTopic, r.RefPartition, r.RefOffset, r.RefProducerID = ptr(topic), ptr(int32(0)), ptr(off-10), ptr(pid-1)
		}
		return r
	}
	for i, g := range [][]analysis.DuplicateRow{
		{row(1, 8, 1, 1, "", 0), row(1, 18, 2, 2, "strong", 0)},
		{row(2, 9, 1, 1, "", 0), row(2, 19, 2, 2, "strong", 0)},
		{row(3, 30, 2, 1, "", 0), row(3, 40, 3, 2, "weak", dups.WhyShort)},
	} {
		if err := c.Duplicates(g); err != nil {
			t.Fatalf("group %d: %v", i+1, err)
		}
	}
	if err := c.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := &pipeline.Summary{Partitions: []analysis.PartitionSummary{{Topic: topic, Dir: topic + "-0", First: ptr(int64(0)), Last: ptr(int64(49))}}}
	page, m := render(t, &Run{Version: "test", Generated: time.Unix(0, 0), Inputs: []Input{{Path: "in", Kind: "dir"}}, Summary: res,
		DupStats: dups.Stats{Groups: 3, Duplicates: 3}, Collected: c})
	if m.Strong != 2 || m.Possible != 1 {
		t.Errorf("model: %d strong, %d possible; want 2 and 1", m.Strong, m.Possible)
	}
	for _, want := range []string{
		"2 with strong evidence of a resend, 1 possible only",
		"restart-resend, strong evidence</td>",
		"possible restart-resend: too few records</td>",
		`<td class="n">2</td><td class="n">1</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestLossesLeadIntactFolded: the Losses section leads with the verdicts
// across brokers that need action and the crashed copies' line, lists the
// copies that are not intact, and counts the intact ones by topic behind
// a toggle (#44).
func TestLossesLeadIntactFolded(t *testing.T) {
	sum := &pipeline.Summary{Verdicts: []analysis.Verdict{
		{Topic: "t", Partition: 2, Dir: "t-2", Text: "LOST 5 offset(s): 1..5"},
		{Topic: "t", Partition: 0, Dir: "t-0", Intact: true, Text: "intact: offsets 0..9"},
		{Topic: "u", Partition: 1, Dir: "u-1", Intact: true, Text: "intact: no batches"},
		{Topic: "u", Partition: 2, Dir: "u-2", Intact: true, Text: "intact: no batches"},
	}, Clusters: []analysis.ClusterVerdict{
		{Topic: "t", Partition: 2, Verdict: analysis.CopyLost, Text: "LOST across 2 copies: offsets 1..5 are in no copy"},
		{Topic: "t", Partition: 0, Verdict: analysis.CopyIntact, Text: "intact across 2 copies"},
	}, Crashed: analysis.CrashedCopies{Copies: 2, LogDirs: 1}}
	var b strings.Builder
	if err := Write(&b, Build(&Run{Summary: sum})); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	across, lost, fold := strings.Index(page, "LOST across 2 copies"), strings.Index(page, "LOST 5 offset(s)"), strings.Index(page, `<details class="intact">`)
	if across < 0 || lost < 0 || fold < 0 || !(across < lost && lost < fold) {
		t.Errorf("not the verdicts across brokers, then the losses, then the folded intact copies: %d, %d, %d", across, lost, fold)
	}
	for _, want := range []string{"<summary>3 intact partition copies, by topic</summary>", `<td>u</td><td class="n">2</td>`,
		"1 partition held by several brokers intact on every copy.", analysis.CrashedCopies{Copies: 2, LogDirs: 1}.Line()} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "intact: offsets 0..9") || strings.Contains(page, "intact across 2 copies") {
		t.Errorf("an intact copy listed one by one")
	}
}

// TestFactsSayWhatIsThere: the page's facts name the log dirs that share
// a broker id, and a page with timestamped batches but nothing to draw on
// the cluster's time axis says so rather than that nothing has a time.
func TestFactsSayWhatIsThere(t *testing.T) {
	first, last := int64(1700000000000), int64(1700000060000)
	sum := &pipeline.Summary{Partitions: []analysis.PartitionSummary{
		{Input: 0, Dir: "t-0", Topic: "t", BrokerID: new(int32), FirstTime: &first, LastTime: &last},
		{Input: 1, Dir: "t-0", Topic: "t", BrokerID: new(int32), FirstTime: &first, LastTime: &last},
		{Input: 2, Dir: "t-0", Topic: "t", BrokerID: new(int32)},
	}}
	var b strings.Builder
	if err := Write(&b, Build(&Run{Summary: sum})); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<dt>brokers</dt><dd>0 (3 log dirs: some give the same broker id)</dd>",
		"The batches' timestamps span 2023-11-14 22:13:20.000Z – 2023-11-14 22:14:20.000Z."} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "Nothing in the inputs has a time") {
		t.Errorf("the page says nothing has a time, over timestamped batches")

	}
}
