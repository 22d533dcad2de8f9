package segtest

// Encoders of the __consumer_offsets records a classic consumer group
// writes (formats/internal-topics.md): an offset commit (key version 1,
// value version 3) and the group's metadata at a generation (key version
// 2, value version 3), as analysis/topics decodes them.

// OffsetCommitKey is the key of group's commit on topic's partition.
func OffsetCommitKey(group, topic string, partition int32) []byte {
	return Fields(int16(1), group, topic, partition)
}

// OffsetCommitValue is a commit of offset (the next one the group reads)
// at commitTs, with the leader epoch of the last record read (-1 unknown)
// and no metadata.
func OffsetCommitValue(offset int64, leaderEpoch int32, commitTs int64) []byte {
	return Fields(int16(3), offset, leaderEpoch, "", commitTs)
}

// GroupMetadataKey is the key of group's metadata.
func GroupMetadataKey(group string) []byte { return Fields(int16(2), group) }

// GroupMember is a member of a classic group at one generation.
type GroupMember struct {
	MemberID, ClientID, ClientHost string
	// RebalanceTimeout is the member's max.poll.interval.ms.
	RebalanceTimeout, SessionTimeout int32
}

// GroupMetadataValue is a consumer group's state at a generation written
// at ts: protocol "range", its first member the leader (none when there
// are no members, as for an empty group).
func GroupMetadataValue(generation int32, ts int64, members []GroupMember) []byte {
	nullString := []byte{0xff, 0xff}
	protocol, leader := nullString, nullString
	if len(members) > 0 {
		protocol, leader = Fields("range"), Fields(members[0].MemberID)
	}
	b := Fields(int16(3), "consumer", generation, protocol, leader, ts, int32(len(members)))
	for _, m := range members {
		// No group instance id (dynamic membership); the subscription
		// and assignment are opaque to the decoder: empty.
		b = append(b, Fields(m.MemberID, nullString, m.ClientID, m.ClientHost, m.RebalanceTimeout, m.SessionTimeout, int32(0), int32(0))...)
	}
	return b
}
