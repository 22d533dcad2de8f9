package cluster_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/cluster"
	"github.com/ksleuth/ksleuth/analysis/topics"
)

// TestClusterEvents replays a metadata log: a topic and its partition,
// an ISR shrink, an unclean election, a clean leader change, fencing and
// a config change; read from two brokers' copies, each event is kept
// once, and a snapshot's records set state without being events.
func TestClusterEvents(t *testing.T) {
	id := topics.UUID{1}
	val := "1"
	i8 := func(v int8) *int8 { return &v }
	i32 := func(v int32) *int32 { return &v }
	isr := func(vs ...int32) *[]int32 { return &vs }
	log := []any{
		&topics.RegisterBrokerRecord{BrokerID: 1, BrokerEpoch: 5, Fenced: true},
		&topics.UnfenceBrokerRecord{ID: 1, Epoch: 5},
		&topics.TopicRecord{Name: "orders", TopicID: id},
		&topics.PartitionRecord{PartitionID: 0, TopicID: id, Replicas: []int32{2, 3, 1}, Isr: []int32{2, 3, 1}, Leader: 2},
		&topics.ConfigRecord{ResourceType: 2, ResourceName: "orders", Name: "min.insync.replicas", Value: &val},
		&topics.PartitionChangeRecord{PartitionID: 0, TopicID: id, Isr: isr(2)},
		&topics.FenceBrokerRecord{ID: 2, Epoch: 7},
		&topics.PartitionChangeRecord{PartitionID: 0, TopicID: id, Leader: i32(1), Isr: isr(1), LeaderRecoveryState: i8(topics.LeaderRecovering)},
		&topics.PartitionChangeRecord{PartitionID: 0, TopicID: id, Isr: isr(1, 3)},
		&topics.PartitionChangeRecord{PartitionID: 0, TopicID: id, Leader: i32(3)},
		// KIP-966: the last ISR member is fenced, the ISR empties into the
		// ELR, and the leader elected from the ELR is a clean election.
		&topics.PartitionChangeRecord{PartitionID: 0, TopicID: id, Leader: i32(-1), Isr: isr(), EligibleLeaderReplicas: isr(3)},
		&topics.PartitionChangeRecord{PartitionID: 0, TopicID: id, Leader: i32(3), Isr: isr(3), EligibleLeaderReplicas: isr()},
		// With a non-empty ISR, a leader outside it and the ELR is unclean
		// even without RECOVERING.
		&topics.PartitionChangeRecord{PartitionID: 0, TopicID: id, Leader: i32(2)},
		&topics.RemoveTopicRecord{TopicID: id},
	}
	e := cluster.NewClusterEvents()
	for copy := range int32(2) {
		// The snapshot comes first and names the topic; it is no event.
		e.Add(copy, "__cluster_metadata-0/00000000000000000000-0000000001.checkpoint", 0, nil,
			&topics.MetadataRecord{Data: &topics.TopicRecord{Name: "orders", TopicID: id}})
		for i, d := range log {
			ts := int64(1000 + i)
			e.Add(copy, "__cluster_metadata-0/00000000000000000000.log", int64(i), &ts, &topics.MetadataRecord{Data: d})
		}
	}
	var got []string
	for _, r := range e.Rows() {
		b := "-"
		if r.Broker != nil {
			b = fmt.Sprint(*r.Broker)
		}
		got = append(got, fmt.Sprintf("%d %s %s: %s", *r.Time, b, r.Kind, r.Details))
	}
	want := []string{
		"1000 1 broker-registered: broker 1 registered (broker epoch 5, fenced)",
		"1001 1 broker-unfenced: broker 1 unfenced (broker epoch 5)",
		"1002 - topic-created: topic orders created (id AQAAAAAAAAAAAAAAAAAAAA)",
		`1004 - config-change: topic "orders": min.insync.replicas = "1"`,
		"1005 2 isr-shrink: orders-0: ISR [2 3 1] -> [2] ([3 1] left)",
		"1006 2 broker-fenced: broker 2 fenced (broker epoch 7)",
		"1007 1 unclean-election: orders-0: broker 1 elected leader from outside the ISR [2] (previous leader 2); leader recovery state RECOVERING",
		"1007 1 isr-shrink: orders-0: ISR [2] -> [1] ([2] left)",
		"1007 1 isr-expand: orders-0: ISR [2] -> [1] ([1] joined)",
		"1008 1 isr-expand: orders-0: ISR [1] -> [1 3] ([3] joined)",
		"1009 3 leader-change: orders-0: leader 1 -> 3",
		"1010 - leader-change: orders-0: leader 3 -> none",
		"1010 - isr-shrink: orders-0: ISR [1 3] -> [] ([1 3] left)",
		"1011 3 leader-change: orders-0: leader none -> 3 (elected from the eligible leader replicas)",
		"1011 3 isr-expand: orders-0: ISR [] -> [3] ([3] joined)",
		"1012 2 unclean-election: orders-0: broker 2 elected leader from outside the ISR [3] (previous leader 3)",
		"1013 - topic-deleted: topic orders deleted (id AQAAAAAAAAAAAAAAAAAAAA)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The two unclean elections and the election from the ELR bear on
	// loss; nothing else does, a partition left without a leader neither.
	var loss []int64
	for _, r := range e.Rows() {
		if cluster.BearsOnLoss(&r) {
			loss = append(loss, *r.Time)
		}
	}
	if fmt.Sprint(loss) != "[1007 1011 1012]" {
		t.Errorf("events bearing on loss at %v, want [1007 1011 1012]", loss)
	}
}
