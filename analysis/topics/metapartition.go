package topics

// Metadata records about topics and partitions: creation, deletion, and
// every leader, ISR, replica-set and eligible-leader change. See
// metabroker.go for how the JSON form follows kafka-dump-log.

// TopicRecord (apiKey 2): a topic was created with this id.
type TopicRecord struct {
	Name    string `json:"name"`
	TopicID UUID   `json:"topicId"`
}

// RemoveTopicRecord (apiKey 9): the topic with this id was deleted.
type RemoveTopicRecord struct {
	TopicID UUID `json:"topicId"`
}

// Leader recovery states (PartitionRecord and PartitionChangeRecord).
const (
	// LeaderRecovered: the leader was elected from the ISR.
	LeaderRecovered = 0
	// LeaderRecovering: an unclean election chose a leader outside the
	// ISR, which has not finished recovering yet.
	LeaderRecovering = 1
)

// PartitionRecord (apiKey 3, versions 0-2): the full state of one
// partition, written at creation and in snapshots.
type PartitionRecord struct {
	PartitionID      int32   `json:"partitionId"`
	TopicID          UUID    `json:"topicId"`
	Replicas         []int32 `json:"replicas"`
	Isr              []int32 `json:"isr"`
	RemovingReplicas []int32 `json:"removingReplicas"`
	AddingReplicas   []int32 `json:"addingReplicas"`
	Leader           int32   `json:"leader"`
	// LeaderRecoveryState (tag 0, default 0 = recovered).
	LeaderRecoveryState int8  `json:"leaderRecoveryState,omitempty"`
	LeaderEpoch         int32 `json:"leaderEpoch"`
	PartitionEpoch      int32 `json:"partitionEpoch"`
	// Directories (version 1+): the log directory id of each replica.
	Directories []UUID `json:"directories,omitempty"`
	// EligibleLeaderReplicas (version 2+, tag 1) and LastKnownElr
	// (version 2+, tag 2), both nullable (KIP-966).
	EligibleLeaderReplicas *[]int32 `json:"eligibleLeaderReplicas,omitempty"`
	LastKnownElr           *[]int32 `json:"lastKnownElr,omitempty"`
}

// NoLeaderChange is PartitionChangeRecord's Leader default: the leader
// stays.
const NoLeaderChange = -2

// PartitionChangeRecord (apiKey 5, versions 0-2): a change to one
// partition. Every field but the partition and topic id is tagged and
// nil when the record leaves it unchanged.
type PartitionChangeRecord struct {
	PartitionID int32 `json:"partitionId"`
	TopicID     UUID  `json:"topicId"`
	// Isr (tag 0): the new in-sync replica set.
	Isr *[]int32 `json:"isr,omitempty"`
	// Leader (tag 1): the new leader, -1 for none. Nil when the record
	// carries the default -2 (unchanged).
	Leader *int32 `json:"leader,omitempty"`
	// Replicas (tag 2), RemovingReplicas (tag 3), AddingReplicas (tag 4):
	// a reassignment.
	Replicas         *[]int32 `json:"replicas,omitempty"`
	RemovingReplicas *[]int32 `json:"removingReplicas,omitempty"`
	AddingReplicas   *[]int32 `json:"addingReplicas,omitempty"`
	// LeaderRecoveryState (tag 5): LeaderRecovered or LeaderRecovering;
	// nil when the record carries the default -1 (unchanged).
	LeaderRecoveryState *int8 `json:"leaderRecoveryState,omitempty"`
	// Directories (version 1+, tag 8).
	Directories *[]UUID `json:"directories,omitempty"`
	// EligibleLeaderReplicas (version 2+, tag 6) and LastKnownElr
	// (version 2+, tag 7).
	EligibleLeaderReplicas *[]int32 `json:"eligibleLeaderReplicas,omitempty"`
	LastKnownElr           *[]int32 `json:"lastKnownElr,omitempty"`
}

// ClearElrRecord (apiKey 28): clear the eligible leader replicas of one
// topic, or of all topics when TopicName is empty.
type ClearElrRecord struct {
	TopicName string `json:"topicName"`
}

func decodeTopic(c *cursor, _ uint32) any {
	r := &TopicRecord{Name: c.named(FieldTopic, true, "Name"), TopicID: c.uuid("TopicId")}
	c.tags(nil)
	return r
}

func decodeRemoveTopic(c *cursor, _ uint32) any {
	r := &RemoveTopicRecord{TopicID: c.uuid("TopicId")}
	c.tags(nil)
	return r
}

func decodePartition(c *cursor, version uint32) any {
	r := &PartitionRecord{PartitionID: c.int32("PartitionId"), TopicID: c.uuid("TopicId")}
	r.Replicas = c.int32s("Replicas")
	r.Isr = c.int32s("Isr")
	r.RemovingReplicas = c.int32s("RemovingReplicas")
	r.AddingReplicas = c.int32s("AddingReplicas")
	r.Leader = c.int32("Leader")
	r.LeaderEpoch = c.int32("LeaderEpoch")
	r.PartitionEpoch = c.int32("PartitionEpoch")
	if version >= 1 {
		r.Directories = c.uuids("Directories")
	}
	c.tags(func(tag uint32, f *cursor) {
		switch tag {
		case 0:
			r.LeaderRecoveryState = f.int8("LeaderRecoveryState")
		case 1:
			if f.since(version, 2, tag) {
				r.EligibleLeaderReplicas = f.optInt32s("EligibleLeaderReplicas")
			}
		case 2:
			if f.since(version, 2, tag) {
				r.LastKnownElr = f.optInt32s("LastKnownElr")
			}
		}
	})
	return r
}

func decodePartitionChange(c *cursor, version uint32) any {
	r := &PartitionChangeRecord{PartitionID: c.int32("PartitionId"), TopicID: c.uuid("TopicId")}
	c.tags(func(tag uint32, f *cursor) {
		switch tag {
		case 0:
			r.Isr = f.optInt32s("Isr")
		case 1:
			if l := f.int32("Leader"); l != NoLeaderChange {
				r.Leader = &l
			}
		case 2:
			r.Replicas = f.optInt32s("Replicas")
		case 3:
			r.RemovingReplicas = f.optInt32s("RemovingReplicas")
		case 4:
			r.AddingReplicas = f.optInt32s("AddingReplicas")
		case 5:
			if s := f.int8("LeaderRecoveryState"); s != -1 {
				r.LeaderRecoveryState = &s
			}
		case 6:
			if f.since(version, 2, tag) {
				r.EligibleLeaderReplicas = f.optInt32s("EligibleLeaderReplicas")
			}
		case 7:
			if f.since(version, 2, tag) {
				r.LastKnownElr = f.optInt32s("LastKnownElr")
			}
		case 8:
			if f.since(version, 1, tag) {
				r.Directories = f.optUUIDs("Directories")
			}
		}
	})
	return r
}

func decodeClearElr(c *cursor, _ uint32) any {
	r := &ClearElrRecord{TopicName: c.string(true, "TopicName")}
	c.tags(nil)
	return r
}
