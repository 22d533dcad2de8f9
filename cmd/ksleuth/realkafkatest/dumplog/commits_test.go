package dumplog

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/realcheck"
)

// commitFields is one offset commit as both sides print it: the record's
// place, its key and its value.
type commitFields struct {
	file            string
	offset          int64 // the record's own offset in __consumer_offsets
	timestamp       string
	group, topic    string
	partition       int32
	tombstone       bool
	committed       int64
	leaderEpoch     int32 // -1 when absent
	metadata        string
	commitTimestamp int64 // -1 when absent
	expireTimestamp int64 // -1 when absent
}

func (c commitFields) String() string {
	if c.tombstone {
		return fmt.Sprintf("@%d ts %s %s %s-%d tombstone", c.offset, c.timestamp, c.group, c.topic, c.partition)
	}
	return fmt.Sprintf("@%d ts %s %s %s-%d offset %d epoch %d metadata %q commit %d expire %d", c.offset, c.timestamp,
		c.group, c.topic, c.partition, c.committed, c.leaderEpoch, c.metadata, c.commitTimestamp, c.expireTimestamp)
}

// TestCommitsMatchDumpLog holds commits.parquet of every source of the
// real corpus to kafka-dump-log --offsets-decoder run on the same
// __consumer_offsets segments, record for record: group, topic,
// partition, committed offset, leader epoch, metadata, the commit and
// expiry timestamps and the record's own offset and timestamp; and
// groups.parquet to its GroupMetadata records. It fails under CI=true (or
// KSLEUTH_REQUIRE_KAFKA=1) when Kafka is missing.
func TestCommitsMatchDumpLog(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPING the kafka-dump-log comparison of commits under -short")
	}
	k := realcheck.Release(t, realkafka.Newest)
	sources := corpusSources(t)
	var files []string
	bySource := map[string][]string{}
	for _, src := range sources {
		err := filepath.WalkDir(filepath.Join(corpusDir, src), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".log") || !strings.HasPrefix(filepath.Base(filepath.Dir(p)), "__consumer_offsets-") {
				return err
			}
			files = append(files, p)
			bySource[src] = append(bySource[src], p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 100 {
		t.Fatalf("only %d __consumer_offsets segments in the corpus", len(files))
	}
	dl, err := realcheck.DumpLogFiles(k, files, []string{"--deep-iteration", "--print-data-log", "--offsets-decoder"})
	if err != nil {
		t.Fatal(err)
	}
	for f := range dl.Crashed {
		t.Errorf("%s: kafka-dump-log failed on it", f)
	}
	var total, totalTomb, totalOther, totalGroups int
	for _, src := range sources {
		want := map[string][]commitFields{}
		wantGroups := map[string][]string{}
		n, tomb := 0, 0
		for _, f := range bySource[src] {
			d := dl.Files[f]
			if d == nil {
				t.Errorf("%s: kafka-dump-log printed nothing for it", f)
				continue
			}
			for _, e := range d.Entries() {
				if e.Kind() != "record" {
					continue
				}
				if g, ok := dumpLogGroup(e); ok {
					wantGroups[f] = append(wantGroups[f], g)
				}
				c, ok, err := dumpLogCommit(f, e)
				if err != nil {
					t.Errorf("%s: line %d: %v", f, e.Line(), err)
				}
				if ok {
					want[f] = append(want[f], c)
					n++
					if c.tombstone {
						tomb++
					}
				}
			}
		}
		out := filepath.Join(t.TempDir(), "out")
		mustScan(t, "scan", filepath.Join(corpusDir, src), "--out", out, "--progress", "never")
		got := map[string][]commitFields{}
		other := 0
		for _, r := range readTable[analysis.CommitRow](t, filepath.Join(out, "commits.parquet")) {
			f := filepath.Join(corpusDir, src, r.File)
			if !strings.HasSuffix(f, ".log") {
				other++ // a segment in transit: its records repeat the live log's
				continue
			}
			got[f] = append(got[f], ksleuthCommit(f, &r))
		}
		for _, f := range bySource[src] {
			w, g := want[f], got[f]
			if len(w) != len(g) {
				t.Errorf("%s: kafka-dump-log has %d commit records, commits.parquet %d", f, len(w), len(g))
			}
			for i := range min(len(w), len(g)) {
				if w[i] != g[i] {
					t.Errorf("%s: commit %d:\n kafka-dump-log %v\n commits.parquet %v", f, i, w[i], g[i])
				}
			}
		}
		gotGroups := map[string][]string{}
		for _, r := range readTable[analysis.GroupRow](t, filepath.Join(out, "groups.parquet")) {
			if f := filepath.Join(corpusDir, src, r.File); strings.HasSuffix(f, ".log") {
				gotGroups[f] = append(gotGroups[f], ksleuthGroup(&r))
			}
		}
		groups := 0
		for _, f := range bySource[src] {
			w, g := wantGroups[f], gotGroups[f]
			groups += len(w)
			if !slices.Equal(w, g) {
				t.Errorf("%s: group metadata records:\n kafka-dump-log  %q\n groups.parquet %q", f, w, g)
			}
		}
		totalGroups += groups
		for f := range got {
			if _, ok := want[f]; !ok && !slices.Contains(bySource[src], f) {
				t.Errorf("%s: commits.parquet has commits of a file kafka-dump-log was not given", f)
			}
		}
		if n > 0 || other > 0 {
			t.Logf("%s: %d commit records (%d tombstones) in %d segments, the same in commits.parquet; %d more from segments in transit; %d group metadata records, the same in groups.parquet",
				src, n, tomb, len(bySource[src]), other, groups)
		}
		total, totalTomb, totalOther = total+n, totalTomb+tomb, totalOther+other
	}
	t.Logf("total: %d commit records (%d tombstones) in %d segments of %d sources; %d more from segments in transit; %d group metadata records",
		total, totalTomb, len(files), len(sources), totalOther, totalGroups)
	if totalOther > 0 {
		t.Errorf("%d commits in commits.parquet from segments in transit (.swap, .cleaned, .deleted): they repeat the live log's", totalOther)
	}
	if total == 0 {
		t.Fatal("no commit record compared")
	}
}

// dumpLogCommit reads an offset commit from a kafka-dump-log record line
// (--offsets-decoder prints the key and value as JSON); ok is false for
// the other record types.
func dumpLogCommit(file string, e *realcheck.DumpEntry) (commitFields, bool, error) {
	keyText, hasKey := e.Key()
	payload, hasPayload := e.Payload()
	var key struct {
		Type string `json:"type"`
		Data struct {
			Group     string `json:"group"`
			Topic     string `json:"topic"`
			Partition int32  `json:"partition"`
		} `json:"data"`
	}
	if !hasKey || json.Unmarshal([]byte(keyText), &key) != nil {
		return commitFields{}, false, fmt.Errorf("key %q is not the decoder's JSON", keyText)
	}
	if key.Type != "0" && key.Type != "1" {
		return commitFields{}, false, nil
	}
	off, err := strconv.ParseInt(e.Field("offset"), 10, 64)
	if err != nil {
		return commitFields{}, false, err
	}
	ts := e.Field("CreateTime")
	if ts == "" {
		ts = e.Field("LogAppendTime")
	}
	c := commitFields{file: file, offset: off, timestamp: ts, group: key.Data.Group, topic: key.Data.Topic,
		partition: key.Data.Partition, leaderEpoch: -1, commitTimestamp: -1, expireTimestamp: -1}
	if p := strings.TrimSpace(payload); !hasPayload || p == "<DELETE>" || p == "null" {
		c.tombstone = true
		return c, true, nil
	}
	var v struct {
		Data struct {
			Offset          int64  `json:"offset"`
			LeaderEpoch     *int32 `json:"leaderEpoch"`
			Metadata        string `json:"metadata"`
			CommitTimestamp *int64 `json:"commitTimestamp"`
			ExpireTimestamp *int64 `json:"expireTimestamp"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(payload), &v); err != nil {
		return c, false, fmt.Errorf("payload %q: %v", payload, err)
	}
	c.committed, c.metadata = v.Data.Offset, v.Data.Metadata
	if v.Data.LeaderEpoch != nil {
		c.leaderEpoch = *v.Data.LeaderEpoch
	}
	if v.Data.CommitTimestamp != nil {
		c.commitTimestamp = *v.Data.CommitTimestamp
	}
	if v.Data.ExpireTimestamp != nil {
		c.expireTimestamp = *v.Data.ExpireTimestamp
	}
	return c, true, nil
}

// ksleuthCommit is a commits.parquet row in the same fields, with its
// nulls back as Kafka's -1.
func ksleuthCommit(file string, r *analysis.CommitRow) commitFields {
	c := commitFields{file: file, offset: r.Offset, timestamp: "-1", group: r.Group, topic: r.Topic, partition: r.Partition,
		tombstone: r.Tombstone, leaderEpoch: -1, metadata: r.Metadata, commitTimestamp: -1, expireTimestamp: -1}
	if r.Timestamp != nil {
		c.timestamp = strconv.FormatInt(*r.Timestamp, 10)
	}
	if r.Tombstone {
		c.metadata = ""
		return c
	}
	if r.CommittedOffset != nil {
		c.committed = *r.CommittedOffset
	}
	if r.LeaderEpoch != nil {
		c.leaderEpoch = *r.LeaderEpoch
	}
	if r.CommitTimestamp != nil {
		c.commitTimestamp = *r.CommitTimestamp
	}
	if r.ExpireTimestamp != nil {
		c.expireTimestamp = *r.ExpireTimestamp
	}
	return c
}

// dumpLogGroup renders a GroupMetadata record of kafka-dump-log's decode
// in the fields groups.parquet has; ok is false for other records.
func dumpLogGroup(e *realcheck.DumpEntry) (string, bool) {
	keyText, hasKey := e.Key()
	payload, hasPayload := e.Payload()
	var key struct {
		Type string `json:"type"`
		Data struct {
			Group string `json:"group"`
		} `json:"data"`
	}
	if !hasKey || json.Unmarshal([]byte(keyText), &key) != nil || key.Type != "2" {
		return "", false
	}
	head := fmt.Sprintf("@%s %s", e.Field("offset"), key.Data.Group)
	if p := strings.TrimSpace(payload); !hasPayload || p == "<DELETE>" || p == "null" {
		return head + " tombstone", true
	}
	var v struct {
		Data struct {
			ProtocolType string  `json:"protocolType"`
			Generation   int32   `json:"generation"`
			Protocol     *string `json:"protocol"`
			Leader       *string `json:"leader"`
			Members      []struct {
				MemberID         string  `json:"memberId"`
				GroupInstanceID  *string `json:"groupInstanceId"`
				ClientID         string  `json:"clientId"`
				ClientHost       string  `json:"clientHost"`
				RebalanceTimeout *int32  `json:"rebalanceTimeout"`
				SessionTimeout   int32   `json:"sessionTimeout"`
			} `json:"members"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(payload), &v); err != nil {
		return head + " undecodable: " + err.Error(), true
	}
	d := v.Data
	s := fmt.Sprintf("%s %s gen %d protocol %s leader %s", head, d.ProtocolType, d.Generation, optStr(d.Protocol), optStr(d.Leader))
	for _, m := range d.Members {
		rt := int32(-1)
		if m.RebalanceTimeout != nil {
			rt = *m.RebalanceTimeout
		}
		s += fmt.Sprintf(" [%s %s %s %s %d %d]", m.MemberID, optStr(m.GroupInstanceID), m.ClientID, m.ClientHost, rt, m.SessionTimeout)
	}
	return s, true
}

// ksleuthGroup renders a groups.parquet row as dumpLogGroup does.
func ksleuthGroup(r *analysis.GroupRow) string {
	head := fmt.Sprintf("@%d %s", r.Offset, r.Group)
	if r.Tombstone {
		return head + " tombstone"
	}
	gen := int32(-1)
	if r.Generation != nil {
		gen = *r.Generation
	}
	s := fmt.Sprintf("%s %s gen %d protocol %s leader %s", head, r.ProtocolType, gen, optStr(r.Protocol), optStr(r.Leader))
	for _, m := range r.Members {
		rt := int32(-1)
		if m.RebalanceTimeoutMs != nil {
			rt = *m.RebalanceTimeoutMs
		}
		s += fmt.Sprintf(" [%s %s %s %s %d %d]", m.MemberID, optStr(m.GroupInstanceID), m.ClientID, m.ClientHost, rt, m.SessionTimeoutMs)
	}
	return s
}

func optStr(p *string) string {
	if p == nil {
		return "null"
	}
	return strconv.Quote(*p)
}
