package topics

import (
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestSegtestGroupRecords: the generator's __consumer_offsets records
// (segtest, for the scenarios of consumer-side duplicate causes) decode
// here to what they were written with.
func TestSegtestGroupRecords(t *testing.T) {
	k, err := DecodeGroupKey(segtest.OffsetCommitKey("app", "in", 3))
	if err != nil || k.Type != GroupTypeOffsetCommit || k.Group != "app" || *k.Topic != "in" || *k.Partition != 3 {
		t.Errorf("offset commit key: %+v, %v", k, err)
	}
	v, err := DecodeOffsetCommitValue(segtest.OffsetCommitValue(42, 7, 1700000000123))
	if err != nil || v.Version != 3 || v.Offset != 42 || v.LeaderEpoch != 7 || v.CommitTimestamp != 1700000000123 || v.Metadata != "" {
		t.Errorf("offset commit value: %+v, %v", v, err)
	}
	k, err = DecodeGroupKey(segtest.GroupMetadataKey("app"))
	if err != nil || k.Type != GroupTypeGroupMetadata || k.Group != "app" {
		t.Errorf("group metadata key: %+v, %v", k, err)
	}
	ms := []segtest.GroupMember{{MemberID: "a-1", ClientID: "a", ClientHost: "/10.0.0.1", RebalanceTimeout: 300000, SessionTimeout: 45000},
		{MemberID: "b-1", ClientID: "b", ClientHost: "/10.0.0.2", RebalanceTimeout: 1000, SessionTimeout: 2000}}
	g, err := DecodeGroupMetadataValue(segtest.GroupMetadataValue(5, 1700000000456, ms))
	if err != nil || g.Version != 3 || g.Generation != 5 || g.CurrentStateTimestamp != 1700000000456 || g.ProtocolType != "consumer" ||
		g.Protocol == nil || *g.Protocol != "range" || g.Leader == nil || *g.Leader != "a-1" || len(g.Members) != 2 {
		t.Fatalf("group metadata value: %+v, %v", g, err)
	}
	for i, m := range g.Members {
		w := ms[i]
		if m.MemberID != w.MemberID || m.ClientID != w.ClientID || m.ClientHost != w.ClientHost || m.GroupInstanceID != nil ||
			m.RebalanceTimeout != w.RebalanceTimeout || m.SessionTimeout != w.SessionTimeout || m.SubscriptionSize != 0 || m.AssignmentSize != 0 {
			t.Errorf("member %d: %+v, want %+v", i, m, w)
		}
	}
	g, err = DecodeGroupMetadataValue(segtest.GroupMetadataValue(6, 1700000000789, nil))
	if err != nil || g.Generation != 6 || g.Protocol != nil || g.Leader != nil || len(g.Members) != 0 {
		t.Errorf("empty group: %+v, %v", g, err)
	}
}
