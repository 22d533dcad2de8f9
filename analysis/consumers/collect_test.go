package consumers

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
)

// The fixtures are written from the schemas of apache/kafka's
// OffsetCommitKey/Value and GroupMetadataKey/Value (classic encoding).

func be16(b []byte, v int16) []byte { return binary.BigEndian.AppendUint16(b, uint16(v)) }
func be32(b []byte, v int32) []byte { return binary.BigEndian.AppendUint32(b, uint32(v)) }
func be64(b []byte, v int64) []byte { return binary.BigEndian.AppendUint64(b, uint64(v)) }
func str(b []byte, s string) []byte { return append(be16(b, int16(len(s))), s...) }

func commitKey(version int16, group, topic string, part int32) []byte {
	return be32(str(str(be16(nil, version), group), topic), part)
}

func row(topic string, part int32, off int64, key, value []byte) analysis.PayloadRecordRow {
	ts := int64(1700000000000)
	return analysis.PayloadRecordRow{RecordRow: analysis.RecordRow{Topic: topic, Partition: part, Offset: off,
		Segment: topic + "-" + "7/00000000000000000000.log", BatchPosition: 61 * off, Timestamp: &ts, TxnState: "none"},
		Key: key, Value: value}
}

func TestCollector(t *testing.T) {
	// OffsetCommitValue v3: offset, leaderEpoch, metadata, commitTimestamp.
	v3 := be64(str(be32(be64(be16(nil, 3), 1234), 5), "m"), 1700000001000)
	// v3 with an unknown leader epoch.
	v3noEpoch := be64(str(be32(be64(be16(nil, 3), 1300), -1), ""), 1700000002000)
	// v1: offset, metadata, commitTimestamp, expireTimestamp.
	v1 := be64(be64(str(be64(be16(nil, 1), 77), ""), 1600000000000), 1600000600000)
	// GroupMetadataValue v3: protocolType, generation, protocol, leader,
	// currentStateTimestamp, members [memberId, groupInstanceId, clientId,
	// clientHost, rebalanceTimeout, sessionTimeout, subscription,
	// assignment].
	gm := str(be16(nil, 3), "consumer")
	gm = str(str(be32(gm, 4), "range"), "m-1")
	gm = be32(be64(gm, 1700000000500), 1)
	gm = str(str(be16(str(gm, "m-1"), -1), "billing-app"), "/10.0.0.7")
	gm = be32(be32(gm, 300000), 45000)
	gm = be32(gm, 2) // subscription: 2 bytes
	gm = append(gm, 1, 2)
	gm = be32(gm, 0)
	groupKey := str(be16(nil, 2), "billing")

	const co = "__consumer_offsets"
	rows := []analysis.PayloadRecordRow{
		row(co, 7, 0, commitKey(1, "billing", "orders", 3), v3),
		row(co, 7, 1, commitKey(1, "billing", "orders", 3), v3noEpoch),
		row(co, 7, 2, commitKey(0, "old", "orders", 3), v1),
		row(co, 7, 3, commitKey(1, "billing", "orders", 3), nil), // tombstone
		row(co, 7, 4, groupKey, gm),
		row(co, 7, 5, commitKey(1, "billing", "orders", 3), v3[:9]), // cut short
		row("orders", 3, 0, commitKey(1, "x", "y", 0), v3),          // not __consumer_offsets
	}
	c := New()
	c.Add(rows)
	commits := c.Commits([]string{"broker-1"})
	if len(commits) != 4 {
		t.Fatalf("%d commit rows, want 4: %+v", len(commits), commits)
	}
	a := commits[0]
	if a.Source != "broker-1" || a.Group != "billing" || a.Topic != "orders" || a.Partition != 3 || *a.CommittedOffset != 1234 ||
		*a.LeaderEpoch != 5 || a.Metadata != "m" || *a.CommitTimestamp != 1700000001000 || a.ExpireTimestamp != nil ||
		a.LogPartition != 7 || a.Offset != 0 || a.KeyVersion != 1 || *a.ValueVersion != 3 || a.Tombstone {
		t.Errorf("v3 commit: %+v", a)
	}
	if commits[1].LeaderEpoch != nil {
		t.Errorf("leader epoch -1 is %d, want null", *commits[1].LeaderEpoch)
	}
	if b := commits[2]; b.KeyVersion != 0 || *b.CommittedOffset != 77 || b.ExpireTimestamp == nil || *b.ExpireTimestamp != 1600000600000 || b.LeaderEpoch != nil {
		t.Errorf("v1 commit: %+v", b)
	}
	if d := commits[3]; !d.Tombstone || d.CommittedOffset != nil || d.ValueVersion != nil || d.CommitTimestamp != nil {
		t.Errorf("tombstone: %+v", d)
	}
	groups := c.Groups(nil)
	if len(groups) != 1 {
		t.Fatalf("groups: %+v", groups)
	}
	g := groups[0]
	if g.Group != "billing" || g.ProtocolType != "consumer" || *g.Generation != 4 || *g.Protocol != "range" || *g.Leader != "m-1" ||
		len(g.Members) != 1 || g.Offset != 4 {
		t.Fatalf("group: %+v", g)
	}
	if m := g.Members[0]; m.MemberID != "m-1" || m.GroupInstanceID != nil || m.ClientID != "billing-app" || m.ClientHost != "/10.0.0.7" ||
		*m.RebalanceTimeoutMs != 300000 || m.SessionTimeoutMs != 45000 || m.SubscriptionSize != 2 || m.AssignmentSize != 0 {
		t.Errorf("member: %+v", m)
	}
	fs := c.Findings()
	if len(fs) != 1 || fs[0].Kind != "malformed-record" || *fs[0].Offset != 5 || *fs[0].Position != 5*61 || fs[0].File == "" {
		t.Fatalf("findings: %+v", fs)
	}
	x := c.Index(nil)
	if got := x.ConsumedPast(0, "", "orders", 3, 1299); len(got) != 1 || got[0].Commit.Offset != 1300 {
		t.Errorf("consumed past 1299: %+v", got)
	}
}

// A commit or group record of a damaged batch keeps its row, marked, and
// its commit is not evidence of consumption.
func TestCollectorDamaged(t *testing.T) {
	v3 := be64(str(be32(be64(be16(nil, 3), 1234), 5), ""), 1700000001000)
	gm := str(be16(nil, 0), "consumer")
	gm = str(str(be32(gm, 4), "range"), "m-1")
	gm = be32(gm, 0)
	r := row("__consumer_offsets", 7, 0, commitKey(1, "billing", "orders", 3), v3)
	r.Damaged = true
	g := row("__consumer_offsets", 7, 1, str(be16(nil, 2), "billing"), gm)
	g.Damaged = true
	c := New()
	c.Add([]analysis.PayloadRecordRow{r, g})
	if cs := c.Commits(nil); len(cs) != 1 || !cs[0].Damaged {
		t.Fatalf("commits: %+v, want one marked damaged", cs)
	}
	if gs := c.Groups(nil); len(gs) != 1 || !gs[0].Damaged {
		t.Fatalf("groups: %+v, want one marked damaged", gs)
	}
	if got := c.Index(nil).ConsumedPast(0, "", "orders", 3, 0); len(got) != 0 {
		t.Errorf("a damaged commit counts as consumption: %+v", got)
	}
}

// TestCollectorTrailingBytes: Kafka reads a __consumer_offsets key and
// value by their schema and ignores bytes after the last field, so it
// applies such a commit. Truth: a commit with a byte left over in its key,
// one with a byte left over in its value, and one with both each make a
// row (the broker acted on them) and a trailing-bytes finding per part.
func TestCollectorTrailingBytes(t *testing.T) {
	v3 := be64(str(be32(be64(be16(nil, 3), 1234), 5), "m"), 1700000001000)
	key := commitKey(1, "billing", "orders", 3)
	const co = "__consumer_offsets"
	c := New()
	c.Add([]analysis.PayloadRecordRow{
		row(co, 7, 0, append(slices.Clone(key), 0), v3),
		row(co, 7, 1, key, append(slices.Clone(v3), 9)),
		row(co, 7, 2, append(slices.Clone(key), 0), append(slices.Clone(v3), 9)),
	})
	commits := c.Commits(nil)
	if len(commits) != 3 {
		t.Fatalf("%d commit rows, want 3: %+v", len(commits), commits)
	}
	for i, r := range commits {
		if r.Group != "billing" || r.Topic != "orders" || r.Partition != 3 || r.CommittedOffset == nil || *r.CommittedOffset != 1234 || r.Offset != int64(i) {
			t.Errorf("commit %d: %+v", i, r)
		}
	}
	var offs []int64
	for _, f := range c.Findings() {
		if f.Kind != "trailing-bytes" {
			t.Errorf("finding %s: %s", f.Kind, f.Message)
		}
		offs = append(offs, *f.Offset)
	}
	if !slices.Equal(offs, []int64{0, 1, 2, 2}) {
		t.Errorf("trailing-bytes findings at offsets %v, want [0 1 2 2]", offs)
	}
}
