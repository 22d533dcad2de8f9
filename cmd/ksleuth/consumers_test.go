package main

import (
	"encoding/binary"
	"encoding/json"
	"github.com/ksleuth/ksleuth/analysis/report/text"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// consumersT0 is 2024-05-01T03:10:00Z.
const consumersT0 = int64(1714533000000)

// writeConsumersLogDir writes a small log dir whose orders-0 has a resend
// (offsets 5-6 repeat 3-4), an aborted transaction (10-12) and a missing
// segment (13-19), and whose __consumer_offsets-0 holds what three groups
// committed for it; the fixtures' bytes follow the OffsetCommit and
// GroupMetadata schemas of apache/kafka.
func writeConsumersLogDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "logdir")
	rec := func(k string) segtest.Record { return segtest.Record{Key: []byte(k), Value: []byte("value of " + k)} }
	prod := func(id int64, seq int32) *segtest.Producer { return &segtest.Producer{ID: id, BaseSequence: seq} }
	orders := [][]segtest.Batch{{
		{Magic: 2, BaseOffset: 0, FirstTimestamp: consumersT0, Producer: prod(1000, 0), AutoDeltas: true,
			Records: []segtest.Record{rec("k0"), rec("k1"), rec("k2"), rec("k3"), rec("k4")}},
		{Magic: 2, BaseOffset: 5, FirstTimestamp: consumersT0 + 60000, Producer: prod(1001, 0), AutoDeltas: true,
			Records: []segtest.Record{rec("k3"), rec("k4")}},
		{Magic: 2, BaseOffset: 7, FirstTimestamp: consumersT0 + 61000, Producer: prod(1001, 2), AutoDeltas: true,
			Records: []segtest.Record{rec("k5"), rec("k6"), rec("k7")}},
		{Magic: 2, BaseOffset: 10, FirstTimestamp: consumersT0 + 62000, Producer: prod(2000, 0), AutoDeltas: true, Transactional: true,
			Records: []segtest.Record{rec("t0"), rec("t1")}},
		segtest.MarkerBatch(12, 2000, 0, false, 0, consumersT0+63000, 0),
	}, {
		{Magic: 2, BaseOffset: 20, FirstTimestamp: consumersT0 + 200000, Producer: prod(1001, 5), AutoDeltas: true,
			Records: []segtest.Record{rec("k8"), rec("k9")}},
	}}
	writeSegments(t, filepath.Join(dir, "orders-0"), orders)
	commit := func(at int64, off int64, group string, committed int64, tombstone bool) segtest.Batch {
		key := be32(str16(str16(be16(nil, 1), group), "orders"), 0)
		var value []byte
		if !tombstone {
			// OffsetCommitValue v3: offset, leaderEpoch, metadata,
			// commitTimestamp.
			value = be64(str16(be32(be64(be16(nil, 3), committed), 0), ""), consumersT0+at)
		}
		return segtest.Batch{Magic: 2, BaseOffset: off, FirstTimestamp: consumersT0 + at, Records: []segtest.Record{{Key: key, Value: value}}}
	}
	// GroupMetadataValue v3 of billing: one member.
	gm := str16(be16(nil, 3), "consumer")
	gm = be64(str16(str16(be32(gm, 5), "range"), "billing-1"), consumersT0+20000)
	gm = be32(gm, 1)
	gm = str16(str16(be16(str16(gm, "billing-1"), -1), "billing-app"), "/10.0.0.7")
	gm = be32(be32(be32(be32(gm, 300000), 45000), 0), 0)
	offsets := [][]segtest.Batch{{
		{Magic: 2, BaseOffset: 0, FirstTimestamp: consumersT0 + 20000, Records: []segtest.Record{{Key: str16(be16(nil, 2), "billing"), Value: gm}}},
		commit(30000, 1, "billing", 4, false),
		commit(90000, 2, "billing", 7, false),
		commit(90000, 3, "audit", 6, false),
		commit(100000, 4, "late", 5, false),
		commit(120000, 5, "billing", 13, false),
		commit(210000, 6, "billing", 22, false),
		commit(220000, 7, "audit", 0, true),
		commit(230000, 8, "billing", 15, false), // went back
	}}
	writeSegments(t, filepath.Join(dir, "__consumer_offsets-0"), offsets)
	return dir
}

// writeSegments writes each list of batches as one segment named by its
// first base offset.
func writeSegments(t *testing.T, dir string, segs [][]segtest.Batch) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, bs := range segs {
		var b []byte
		for _, x := range bs {
			b = append(b, x.Encode()...)
		}
		if err := os.WriteFile(filepath.Join(dir, segtest.SegmentFileName(bs[0].BaseOffset)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func be16(b []byte, v int16) []byte   { return binary.BigEndian.AppendUint16(b, uint16(v)) }
func be32(b []byte, v int32) []byte   { return binary.BigEndian.AppendUint32(b, uint32(v)) }
func be64(b []byte, v int64) []byte   { return binary.BigEndian.AppendUint64(b, uint64(v)) }
func str16(b []byte, s string) []byte { return append(be16(b, int16(len(s))), s...) }

// TestConsumersGolden: the consumers command's text, with what needs
// action first and with --all, and its JSON lines on the log dir above.
func TestConsumersGolden(t *testing.T) {
	t.Parallel()
	dir := writeConsumersLogDir(t)
	for _, c := range []struct{ name, golden string }{{"", "consumers.txt"}, {"--all", "consumers_all.txt"}, {"--json", "consumers.jsonl"}} {
		args := []string{"consumers", "--progress", "never", dir}
		if c.name != "" {
			args = append(args, c.name)
		}
		out, errOut, code := runCLI(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		golden(t, c.golden, strings.ReplaceAll(out, dir, "DIR"))
	}
}

// TestConsumersImpact: who consumed what, as the commits say. billing
// committed 7 (past both copies 5 and 6), audit 6 (past 5 only), late 5
// (exactly the first copy: the next to read, not consumed).
func TestConsumersImpact(t *testing.T) {
	t.Parallel()
	dir := writeConsumersLogDir(t)
	out, errOut, code := runCLI(t, "consumers", "--json", "--progress", "never", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	type line struct {
		Type            string  `json:"type"`
		Group           string  `json:"group"`
		What            string  `json:"what"`
		FirstOffset     int64   `json:"first_offset"`
		LastOffset      int64   `json:"last_offset"`
		Complete        bool    `json:"complete"`
		CommittedOffset *int64  `json:"committed_offset"`
		Resets          int     `json:"resets"`
		Tombstones      int     `json:"tombstones"`
		Lag             *int64  `json:"lag"`
		Members         []any   `json:"members"`
		LeaderEpoch     *int32  `json:"leader_epoch"`
		Protocol        *string `json:"protocol"`
	}
	consumed := map[string][]string{} // what@first-last -> group:complete@committed
	types := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var x line
		if err := json.Unmarshal([]byte(l), &x); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		types[x.Type]++
		switch x.Type {
		case "consumed":
			k := x.What + "@" + text.Itoa(x.FirstOffset) + "-" + text.Itoa(x.LastOffset)
			v := x.Group + ":partly@"
			if x.Complete {
				v = x.Group + ":complete@"
			}
			consumed[k] = append(consumed[k], v+text.Itoa(*x.CommittedOffset))
		case "timeline":
			if x.Group == "billing" && (x.Resets != 1 || x.Lag == nil || *x.Lag != 7) {
				t.Errorf("billing's timeline: %s (want one reset, lag 22-15)", l)
			}
			if x.Group == "audit" && x.Tombstones != 1 {
				t.Errorf("audit's timeline: %s (want its tombstone)", l)
			}
		case "group":
			if len(x.Members) != 1 || x.Protocol == nil || *x.Protocol != "range" {
				t.Errorf("group line: %s", l)
			}
		case "commit":
			if x.CommittedOffset != nil && (x.LeaderEpoch == nil || *x.LeaderEpoch != 0) {
				t.Errorf("commit line: %s (leader epoch 0 written)", l)
			}
		}
	}
	want := map[string][]string{
		"duplicate@5-6": {"audit:partly@6", "billing:complete@7"},
		"aborted@10-12": {"billing:complete@13"},
		"gap@13-19":     {"billing:complete@22"},
	}
	for k, v := range want {
		if !slices.Equal(consumed[k], v) {
			t.Errorf("%s consumed by %v, want %v", k, consumed[k], v)
		}
	}
	if len(consumed) != len(want) {
		t.Errorf("consumed: %v, want only %v", consumed, want)
	}
	if types["commit"] != 8 || types["group"] != 1 || types["summary"] != 1 || types["timeline"] != 3 {
		t.Errorf("line types %v", types)
	}
	// duplicates: consumed_by per copy, and the run line of the text.
	out, _, _ = runCLI(t, "dups", "--json", "--progress", "never", dir)
	var g struct {
		Members []struct {
			Offset     int64    `json:"offset"`
			ConsumedBy []string `json:"consumed_by"`
		} `json:"members"`
	}
	seen := 0
	for _, l := range strings.Split(out, "\n") {
		if !strings.Contains(l, `"type":"group"`) {
			continue
		}
		if err := json.Unmarshal([]byte(l), &g); err != nil {
			t.Fatal(err)
		}
		for _, m := range g.Members {
			var want []string
			switch m.Offset {
			case 3, 4: // late's 5 passes both
				want = []string{"audit", "billing", "late"}
			case 5:
				want = []string{"audit", "billing"}
			case 6:
				want = []string{"billing"}
			}
			seen++
			if !slices.Equal(m.ConsumedBy, want) {
				t.Errorf("offset %d consumed_by %v, want %v", m.Offset, m.ConsumedBy, want)
			}
		}
	}
	if seen != 4 {
		t.Errorf("%d duplicate members, want 4:\n%s", seen, out)
	}
	const who = "consumed by group billing (committed 7 at 2024-05-01T03:11:30Z); partly consumed by group audit (committed 6 at 2024-05-01T03:11:30Z)"
	out, _, _ = runCLI(t, "dups", "--progress", "never", dir)
	if !strings.Contains(unwrap(out), "\n  "+who+"\n") {
		t.Errorf("dups text does not say who consumed the run:\n%s", out)
	}
	// The report's run table and link say it too.
	html := filepath.Join(t.TempDir(), "r.html")
	if _, errOut, code := runCLI(t, "report", "--progress", "never", "--html", html, dir); code != exitOK {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), `<td class="expl">`+who+`</td>`); n != 1 {
		t.Errorf("the report's run table says who consumed the run %d times, want once", n)
	}
}

// TestConsumedByFromTables: dups --from-tables reads the scans'
// commits.parquet, so its consumed_by is the live run's.
func TestConsumedByFromTables(t *testing.T) {
	t.Parallel()
	dir := writeConsumersLogDir(t)
	out := filepath.Join(t.TempDir(), "out")
	mustScan(t, "scan", dir, "--records", "--out", out, "--progress", "never")
	groups := func(args ...string) string {
		o, errOut, code := runCLI(t, append([]string{"dups", "--json", "--progress", "never"}, args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var b strings.Builder
		for _, l := range strings.Split(o, "\n") {
			var g struct {
				Type    string `json:"type"`
				Members []struct {
					Offset     int64    `json:"offset"`
					ConsumedBy []string `json:"consumed_by"`
				} `json:"members"`
			}
			if json.Unmarshal([]byte(l), &g) != nil || g.Type != "group" {
				continue
			}
			for _, m := range g.Members {
				b.WriteString(text.Itoa(m.Offset) + ":" + strings.Join(m.ConsumedBy, ",") + " ")
			}
		}
		return b.String()
	}
	live, merged := groups(dir), groups("--from-tables", out)
	if live == "" || live != merged {
		t.Errorf("consumed_by from the log dir %q, from its tables %q", live, merged)
	}
}

// TestConsumersFilters: --group and --topic narrow what is printed;
// --topic does not keep __consumer_offsets from being read.
func TestConsumersFilters(t *testing.T) {
	t.Parallel()
	dir := writeConsumersLogDir(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--group", "^billing$"}, `"commits":5,"tombstones":0,"groups":1,"group_records":1,"timelines":1,"flagged_ranges":3,"consumed":3`},
		{[]string{"--topic", "^orders$"}, `"commits":8,"tombstones":1,"groups":3,"group_records":1,"timelines":3,"flagged_ranges":3,"consumed":4`},
		{[]string{"--topic", "^payments$"}, `"commits":0,"tombstones":0,"groups":1,"group_records":1,"timelines":0,"flagged_ranges":0,"consumed":0`},
	} {
		out, errOut, code := runCLI(t, append([]string{"consumers", "--json", "--progress", "never", dir}, c.args...)...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != exitOK || !strings.Contains(lines[len(lines)-1], c.want) {
			t.Errorf("%v: exit %d, summary %s, want %s\n%s", c.args, code, lines[len(lines)-1], c.want, errOut)
		}
	}
	if _, errOut, code := runCLI(t, "consumers", dir, "--group", "("); code != exitUsage || !strings.Contains(errOut, "--group") {
		t.Errorf("a bad --group: exit %d, %q", code, errOut)
	}
}

// TestConsumersDamagedCommit: a commit read from a batch whose CRC does
// not hold is listed, marked damaged, but is no evidence that its group
// consumed anything (a flipped bit could have made up its offset).
func TestConsumersDamagedCommit(t *testing.T) {
	t.Parallel()
	dir := writeConsumersLogDir(t)
	key := be32(str16(str16(be16(nil, 1), "ghost"), "orders"), 0)
	value := be64(str16(be32(be64(be16(nil, 3), 100), 0), ""), consumersT0+240000)
	b := segtest.Batch{Magic: 2, BaseOffset: 9, FirstTimestamp: consumersT0 + 240000, Records: []segtest.Record{{Key: key, Value: value}}}.Encode()
	b[17] ^= 0xff // the stored CRC
	seg := filepath.Join(dir, "__consumer_offsets-0", segtest.SegmentFileName(0))
	f, err := os.OpenFile(seg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "consumers", "--json", "--progress", "never", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var sawCommit, sawTimeline, sawSummary bool
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		switch {
		case m["group"] == "ghost" && m["type"] == "commit":
			sawCommit = m["damaged"] == true && m["committed_offset"] == 100.0
		case m["group"] == "ghost" && m["type"] == "timeline":
			sawTimeline = m["commits"] == 0.0 && m["skipped_damaged"] == 1.0
		case m["group"] == "ghost":
			t.Errorf("a damaged commit counts: %s", l)
		case m["type"] == "summary":
			sawSummary = m["damaged_commits"] == 1.0
		}
	}
	if !sawCommit || !sawTimeline || !sawSummary {
		t.Errorf("commit %t, timeline %t, summary %t; want all, marked damaged:\n%s", sawCommit, sawTimeline, sawSummary, out)
	}
	text, _, _ := runCLI(t, "consumers", "--progress", "never", dir)
	// ghost consumed nothing (no "group ghost, orders-0: ..." line); its
	// damaged commit makes its timeline one that needs action.
	if !strings.Contains(text, "1 commit record of damaged batches is not counted") || strings.Contains(text, "group ghost,") ||
		!strings.Contains(text, "group ghost:\n") {
		t.Errorf("text:\n%s", text)
	}
}

// TestConsumersClusters: a group's commits apply to the partitions of its
// own cluster. Truth: the log dir of writeConsumersLogDir is broker 1 of
// cluster c1; broker 2 holds only a __consumer_offsets partition where
// group mirror committed 100 for orders-0. When broker 2 is of cluster c2
// (another cluster's orders), mirror consumed none of orders' flagged
// ranges and its timeline names c2, with no end offset or lag (c2 holds
// no orders-0); when it is of c1, mirror consumed all three of them and
// lags 22-100. The same holds when one input (an archive of both
// brokers) holds the two log dirs.
func TestConsumersClusters(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		other    string
		oneInput bool
	}{{"c2", false}, {"c1", false}, {"c2", true}, {"c1", true}} {
		other := c.other
		root := t.TempDir()
		b1, b2 := filepath.Join(root, "broker-1"), filepath.Join(root, "broker-2")
		if err := os.Rename(writeConsumersLogDir(t), b1); err != nil {
			t.Fatal(err)
		}
		key := be32(str16(str16(be16(nil, 1), "mirror"), "orders"), 0)
		value := be64(str16(be32(be64(be16(nil, 3), 100), 0), ""), consumersT0+500000)
		writeSegments(t, filepath.Join(b2, "__consumer_offsets-7"), [][]segtest.Batch{{
			{Magic: 2, FirstTimestamp: consumersT0 + 500000, Records: []segtest.Record{{Key: key, Value: value}}}}})
		for dir, props := range map[string]string{b1: "version=1\nnode.id=1\ncluster.id=c1\n", b2: "version=1\nnode.id=2\ncluster.id=" + other + "\n"} {
			if err := os.WriteFile(filepath.Join(dir, "meta.properties"), []byte(props), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		args := []string{"consumers", "--json", "--progress", "never", b1, b2}
		if c.oneInput {
			args = append(args[:4], root)
		}
		out, errOut, code := runCLI(t, args...)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		mirrorConsumed, mirrorCluster, mirrorLag := 0, "", "none"
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var x struct {
				Type, Group, Cluster string
				Lag                  *int64
			}
			if err := json.Unmarshal([]byte(l), &x); err != nil {
				t.Fatalf("%v: %s", err, l)
			}
			if x.Group != "mirror" {
				continue
			}
			switch x.Type {
			case "consumed":
				mirrorConsumed++
			case "timeline":
				mirrorCluster = x.Cluster
				if x.Lag != nil {
					mirrorLag = strconv.FormatInt(*x.Lag, 10)
				}
			}
		}
		want := map[string]int{"c1": 3, "c2": 0}[other]
		wantLag := map[string]string{"c1": "-78", "c2": "none"}[other]
		if mirrorConsumed != want || mirrorCluster != other || mirrorLag != wantLag {
			t.Errorf("broker 2 of cluster %s, one input %v: mirror consumed %d flagged ranges (want %d), its timeline names cluster %q, lag %s (want %s)\n%s",
				other, c.oneInput, mirrorConsumed, want, mirrorCluster, mirrorLag, wantLag, out)
		}
	}
}

// TestConsumersSegmentInTransit: a segment in transit (the log cleaner's
// .swap, a .deleted one) repeats records of the live log. Truth: a copy of
// __consumer_offsets-0's segment as .log.swap beside it adds no commit and
// no group record, and the scan's partition summary counts the live
// segment's batches only.
func TestConsumersSegmentInTransit(t *testing.T) {
	t.Parallel()
	dir := writeConsumersLogDir(t)
	count := func() (commits, groups int) {
		out, errOut, code := runCLI(t, "consumers", "--json", "--progress", "never", dir)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		return strings.Count(out, `"type":"commit"`), strings.Count(out, `"type":"group"`)
	}
	c0, g0 := count()
	seg := filepath.Join(dir, "__consumer_offsets-0", "00000000000000000000.log")
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(seg+".swap", data, 0o644); err != nil {
		t.Fatal(err)
	}
	if c, g := count(); c != c0 || g != g0 || c0 == 0 {
		t.Errorf("with a .swap copy: %d commits and %d group records, want %d and %d", c, g, c0, g0)
	}
	// The sample's codecs-0 with a .swap copy of its first segment.
	sample := copyDir(t, sampleDir)
	line := func() string {
		out := mustScan(t, "scan", sample, "--out", filepath.Join(t.TempDir(), "out"), "--progress", "never")
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 3 && f[0] == "codecs" && f[1] == "0" {
				return strings.Join(f[:4], " ")
			}
		}
		t.Fatalf("no codecs-0 line in:\n%s", out)
		return ""
	}
	before := line()
	first := filepath.Join(sample, "codecs-0", "00000000000000000000.log")
	data, err = os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(first+".swap", data, 0o644); err != nil {
		t.Fatal(err)
	}
	if after := line(); after != before {
		t.Errorf("scan summary of codecs-0 with a .swap copy %q, without %q", after, before)
	}
}
