package topics

import (
	"fmt"
	"strconv"
)

// __consumer_offsets: the key version is the record type
// (group-coordinator/.../common/message/*Key.json).
const (
	GroupTypeOffsetCommitV0  int16 = 0
	GroupTypeOffsetCommit    int16 = 1
	GroupTypeGroupMetadata   int16 = 2
	GroupTypeMaxKnown        int16 = 15
	offsetCommitValueMax     int16 = 4
	groupMetadataValueMax    int16 = 4
	offsetCommitValueFlexMin int16 = 4
	groupMetadataFlexMin     int16 = 4
)

var groupTypeNames = [...]string{
	0:  "OffsetCommit",
	1:  "OffsetCommit",
	2:  "GroupMetadata",
	3:  "ConsumerGroupMetadata",
	4:  "ConsumerGroupPartitionMetadata",
	5:  "ConsumerGroupMemberMetadata",
	6:  "ConsumerGroupTargetAssignmentMetadata",
	7:  "ConsumerGroupTargetAssignmentMember",
	8:  "ConsumerGroupCurrentMemberAssignment",
	9:  "ShareGroupPartitionMetadata",
	10: "ShareGroupMemberMetadata",
	11: "ShareGroupMetadata",
	12: "ShareGroupTargetAssignmentMetadata",
	13: "ShareGroupTargetAssignmentMember",
	14: "ShareGroupCurrentMemberAssignment",
	15: "ShareGroupStatePartitionMetadata",
}

// GroupTypeName names a __consumer_offsets key version (record type).
func GroupTypeName(t int16) string {
	if t >= 0 && int(t) < len(groupTypeNames) {
		return groupTypeNames[t]
	}
	return "Unknown(" + strconv.Itoa(int(t)) + ")"
}

// groupTypeHasMember: the KIP-848 and share-group keys that name a member
// after the group (ConsumerGroupMemberMetadataKey and the like).
func groupTypeHasMember(t int16) bool {
	switch t {
	case 5, 7, 8, 10, 13, 14:
		return true
	}
	return false
}

// GroupKey is a __consumer_offsets key. Type is the key version.
// OffsetCommit keys fill Group, Topic and Partition; every other type
// fills Group, and member-level types MemberID.
type GroupKey struct {
	Type      int16   `json:"type"`
	Group     string  `json:"group"`
	Topic     *string `json:"topic,omitempty"`
	Partition *int32  `json:"partition,omitempty"`
	MemberID  *string `json:"memberId,omitempty"`
}

// TypeName names the record type.
func (k *GroupKey) TypeName() string { return GroupTypeName(k.Type) }

// DecodeGroupKey decodes a __consumer_offsets key. For a type above 15 it
// still reads the group id (every known key starts with it) and returns
// the key with an ErrUnknownType error.
func DecodeGroupKey(b []byte) (*GroupKey, error) { return decodeGroupKey(b, nil) }

func decodeGroupKey(b []byte, ed *editor) (*GroupKey, error) {
	if b == nil {
		return nil, fmt.Errorf("%w: null key", ErrMalformed)
	}
	c := &cursor{b: b, part: "key", ed: ed}
	k := &GroupKey{Type: c.int16("key version")}
	if c.err != nil {
		return nil, c.err
	}
	switch {
	case k.Type < 0:
		return k, fmt.Errorf("%w: __consumer_offsets key version %d", ErrUnknownType, k.Type)
	case k.Type > GroupTypeMaxKnown:
		k.Group = c.string(false, "group id")
		if c.err != nil {
			k.Group = ""
		}
		return k, fmt.Errorf("%w: __consumer_offsets key version %d", ErrUnknownType, k.Type)
	}
	k.Group = c.named(FieldGroup, false, "group")
	switch {
	case k.Type <= GroupTypeOffsetCommit:
		t := c.named(FieldTopic, false, "topic")
		p := c.int32("partition")
		k.Topic, k.Partition = &t, &p
	case groupTypeHasMember(k.Type):
		m := c.named(FieldMember, false, "MemberId")
		k.MemberID = &m
	}
	return k, c.done()
}

// OffsetCommitValue is the value of an OffsetCommit record, versions 0-4
// (4 flexible).
type OffsetCommitValue struct {
	Version int16 `json:"version"`
	Offset  int64 `json:"offset"`
	// LeaderEpoch (v3+, default -1).
	LeaderEpoch     int32  `json:"leaderEpoch"`
	Metadata        string `json:"metadata"`
	CommitTimestamp int64  `json:"commitTimestamp"`
	// ExpireTimestamp (v1 only, default -1).
	ExpireTimestamp int64 `json:"expireTimestamp"`
	// TopicID (v4+, tagged field 0) names the committed topic by id.
	TopicID *UUID `json:"topicId,omitempty"`
}

// DecodeOffsetCommitValue decodes an OffsetCommit value; nil is a tombstone.
func DecodeOffsetCommitValue(b []byte) (*OffsetCommitValue, error) {
	return decodeOffsetCommitValue(b, nil)
}

func decodeOffsetCommitValue(b []byte, ed *editor) (*OffsetCommitValue, error) {
	if b == nil {
		return nil, nil
	}
	c := &cursor{b: b, part: "value", ed: ed}
	v := &OffsetCommitValue{Version: c.int16("value version"), LeaderEpoch: -1, ExpireTimestamp: -1}
	if c.err != nil {
		return nil, c.err
	}
	if v.Version < 0 || v.Version > offsetCommitValueMax {
		return v, &VersionError{Part: "OffsetCommitValue", Version: v.Version, Max: offsetCommitValueMax}
	}
	flex := v.Version >= offsetCommitValueFlexMin
	v.Offset = c.int64("offset")
	if v.Version >= 3 {
		v.LeaderEpoch = c.int32("leaderEpoch")
	}
	v.Metadata = c.named(FieldCommitMetadata, flex, "metadata")
	v.CommitTimestamp = c.int64("commitTimestamp")
	if v.Version == 1 {
		v.ExpireTimestamp = c.int64("expireTimestamp")
	}
	if flex {
		c.tags(func(tag uint32, f *cursor) {
			if tag == 0 {
				id := f.uuid("topicId")
				v.TopicID = &id
			}
		})
	}
	return v, c.done()
}

// GroupMember is one member of a classic group's GroupMetadataValue.
type GroupMember struct {
	MemberID string `json:"memberId"`
	// GroupInstanceID (v3+): static membership id, or null.
	GroupInstanceID *string `json:"groupInstanceId"`
	ClientID        string  `json:"clientId"`
	ClientHost      string  `json:"clientHost"`
	// RebalanceTimeout (v1+, default -1).
	RebalanceTimeout int32 `json:"rebalanceTimeout"`
	SessionTimeout   int32 `json:"sessionTimeout"`
	// SubscriptionSize and AssignmentSize are the lengths of the opaque
	// protocol bytes (-1 for null); the bytes are not kept.
	SubscriptionSize int `json:"subscriptionSize"`
	AssignmentSize   int `json:"assignmentSize"`
}

// GroupMetadataValue is the value of a GroupMetadata record, versions
// 0-4 (4 flexible).
type GroupMetadataValue struct {
	Version      int16   `json:"version"`
	ProtocolType string  `json:"protocolType"`
	Generation   int32   `json:"generation"`
	Protocol     *string `json:"protocol"`
	Leader       *string `json:"leader"`
	// CurrentStateTimestamp (v2+, default -1).
	CurrentStateTimestamp int64         `json:"currentStateTimestamp"`
	Members               []GroupMember `json:"members"`
}

// DecodeGroupMetadataValue decodes a GroupMetadata value; nil is a
// tombstone (the group was deleted).
func DecodeGroupMetadataValue(b []byte) (*GroupMetadataValue, error) {
	return decodeGroupMetadataValue(b, nil)
}

func decodeGroupMetadataValue(b []byte, ed *editor) (*GroupMetadataValue, error) {
	if b == nil {
		return nil, nil
	}
	c := &cursor{b: b, part: "value", ed: ed}
	v := &GroupMetadataValue{Version: c.int16("value version"), CurrentStateTimestamp: -1}
	if c.err != nil {
		return nil, c.err
	}
	if v.Version < 0 || v.Version > groupMetadataValueMax {
		return v, &VersionError{Part: "GroupMetadataValue", Version: v.Version, Max: groupMetadataValueMax}
	}
	flex := v.Version >= groupMetadataFlexMin
	v.ProtocolType = c.named(FieldProtocolType, flex, "protocolType")
	v.Generation = c.int32("generation")
	v.Protocol = c.namedNullable(FieldProtocol, flex, "protocol")
	v.Leader = c.namedNullable(FieldMember, flex, "leader")
	if v.Version >= 2 {
		v.CurrentStateTimestamp = c.int64("currentStateTimestamp")
	}
	// Smallest member: four empty strings and two ints and two empty
	// byte fields; 2 bytes per string is a safe lower bound in both forms.
	n := c.arrayLen(flex, 4, "members")
	if c.err == nil && n < 0 {
		c.fail("members is null where the schema does not allow it")
	}
	if c.err == nil {
		v.Members = make([]GroupMember, n)
		for i := range v.Members {
			m := &v.Members[i]
			m.MemberID = c.named(FieldMember, flex, "memberId")
			if v.Version >= 3 {
				m.GroupInstanceID = c.namedNullable(FieldGroupInstance, flex, "groupInstanceId")
			}
			m.ClientID = c.named(FieldClientID, flex, "clientId")
			m.ClientHost = c.named(FieldClientHost, flex, "clientHost")
			m.RebalanceTimeout = -1
			if v.Version >= 1 {
				m.RebalanceTimeout = c.int32("rebalanceTimeout")
			}
			m.SessionTimeout = c.int32("sessionTimeout")
			m.SubscriptionSize = sizeOf(c.protocolBytes(flex, v.ProtocolType, false, "subscription"))
			m.AssignmentSize = sizeOf(c.protocolBytes(flex, v.ProtocolType, true, "assignment"))
			if flex {
				c.tags(nil)
			}
			if c.err != nil {
				break
			}
		}
	}
	if flex {
		c.tags(nil)
	}
	return v, c.done()
}

func sizeOf(b []byte) int {
	if b == nil {
		return -1
	}
	return len(b)
}
