package topics

import (
	"fmt"
	"strconv"
	"strings"
)

// __remote_log_metadata record apiKeys (the "apiKey" of
// storage/src/main/resources/message/*.json in apache/kafka). Each value
// is framed as a KRaft metadata record is: uvarint frame version (1),
// uvarint apiKey, uvarint version, then the flexible body. The key is
// null. Every type has only version 0 up to Kafka 4.4.
const (
	APIRemoteSegmentMetadata         = 0
	APIRemoteSegmentMetadataUpdate   = 1
	APIRemotePartitionDeleteMetadata = 2
	APIRemoteSegmentMetadataSnapshot = 3
)

var remoteTypeNames = [...]string{
	"RemoteLogSegmentMetadata", "RemoteLogSegmentMetadataUpdate",
	"RemotePartitionDeleteMetadata", "RemoteLogSegmentMetadataSnapshot",
}

// RemoteSegmentStates are RemoteLogSegmentState's names by id.
var RemoteSegmentStates = [...]string{
	"COPY_SEGMENT_STARTED", "COPY_SEGMENT_FINISHED", "DELETE_SEGMENT_STARTED", "DELETE_SEGMENT_FINISHED",
}

// Remote segment states by id.
const (
	CopySegmentStarted    = 0
	CopySegmentFinished   = 1
	DeleteSegmentStarted  = 2
	DeleteSegmentFinished = 3
)

// RemotePartitionDeleteStates are RemotePartitionDeleteState's names by id.
var RemotePartitionDeleteStates = [...]string{
	"DELETE_PARTITION_MARKED", "DELETE_PARTITION_STARTED", "DELETE_PARTITION_FINISHED",
}

func stateName(names []string, id int8) string {
	if id >= 0 && int(id) < len(names) {
		return names[id]
	}
	return "UNKNOWN(" + strconv.Itoa(int(id)) + ")"
}

// RemoteTopicPartition is a TopicIdPartitionEntry.
type RemoteTopicPartition struct {
	Topic     string `json:"topic"`
	TopicID   UUID   `json:"topicId"`
	Partition int32  `json:"partition"`
}

// RemoteEpoch is one SegmentLeaderEpochEntry: the first offset of a
// leader epoch within the segment.
type RemoteEpoch struct {
	Epoch  int32 `json:"leaderEpoch"`
	Offset int64 `json:"offset"`
}

// RemoteLogRecord is one decoded __remote_log_metadata value. Segment,
// Update and PartitionDelete hold the body by type (Segment for both the
// metadata record and the snapshot record, whose segment id carries no
// topic-partition).
type RemoteLogRecord struct {
	FrameVersion uint32 `json:"frameVersion"`
	APIKey       uint32 `json:"apiKey"`
	Version      uint32 `json:"version"`
	Type         string `json:"type"`

	// TopicPartition and SegmentID name the segment (or, for a partition
	// delete, the partition) the record is about.
	TopicPartition RemoteTopicPartition `json:"topicIdPartition"`
	SegmentID      UUID                 `json:"segmentId"`
	BrokerID       int32                `json:"brokerId"`
	EventTimeMs    int64                `json:"eventTimestampMs"`
	// State is the segment's RemoteLogSegmentState, or for a partition
	// delete its RemotePartitionDeleteState; StateName names it.
	State     int8   `json:"state"`
	StateName string `json:"stateName"`
	// CustomMetadata is the remote storage manager's opaque blob (nil when
	// null).
	CustomMetadata []byte `json:"customMetadata"`

	// The segment's description: metadata and snapshot records only.
	StartOffset   int64         `json:"startOffset"`
	EndOffset     int64         `json:"endOffset"`
	MaxTimeMs     int64         `json:"maxTimestampMs"`
	LeaderEpochs  []RemoteEpoch `json:"segmentLeaderEpochs,omitempty"`
	SizeInBytes   int32         `json:"segmentSizeInBytes"`
	TxnIndexEmpty bool          `json:"txnIndexEmpty"`

	complete bool
}

// Complete reports whether the whole body decoded.
func (m *RemoteLogRecord) Complete() bool { return m != nil && m.complete }

// DecodeRemoteLogMetadata decodes a __remote_log_metadata value. The
// header is returned whenever it parses; an apiKey above 3 is an
// ErrUnknownType error and a version above 0 an unknown-version error.
func DecodeRemoteLogMetadata(b []byte) (*RemoteLogRecord, error) {
	if b == nil {
		return nil, fmt.Errorf("%w: null remote log metadata value", ErrMalformed)
	}
	c := newCursor(b, "value")
	m := &RemoteLogRecord{}
	h := c.apiFrame()
	if c.err != nil {
		return nil, c.err
	}
	m.FrameVersion, m.APIKey, m.Version = h.frame, h.key, h.version
	keyAt, versionAt := h.keyAt, h.versionAt
	if m.FrameVersion != 1 {
		return m, fmt.Errorf("%w, at byte 0 of the value", &VersionError{Part: "remote log metadata frame", Version: int16(min(m.FrameVersion, 32767)), Max: 1})
	}
	if int(m.APIKey) >= len(remoteTypeNames) {
		m.Type = "Unknown(" + strconv.FormatUint(uint64(m.APIKey), 10) + ")"
		return m, fmt.Errorf("%w: remote log metadata apiKey %d (version %d) at byte %d of the value", ErrUnknownType, m.APIKey, m.Version, keyAt)
	}
	m.Type = remoteTypeNames[m.APIKey]
	if m.Version > 0 {
		return m, fmt.Errorf("%w, at byte %d of the value", &VersionError{Part: m.Type + "Record", Version: int16(min(m.Version, 32767)), Max: 0}, versionAt)
	}
	body := &cursor{b: b, off: c.off, part: m.Type + "Record v0 value"}
	switch m.APIKey {
	case APIRemoteSegmentMetadata:
		m.segmentID(body)
		m.segmentBody(body)
	case APIRemoteSegmentMetadataUpdate:
		m.segmentID(body)
		m.BrokerID = body.int32("BrokerId")
		m.EventTimeMs = body.int64("EventTimestampMs")
		m.CustomMetadata = nullableBytes(body, "CustomMetadata")
		m.State = body.int8("RemoteLogSegmentState")
		m.StateName = stateName(RemoteSegmentStates[:], m.State)
		body.tags(nil)
	case APIRemotePartitionDeleteMetadata:
		m.TopicPartition = topicIDPartition(body)
		m.BrokerID = body.int32("BrokerId")
		m.EventTimeMs = body.int64("EventTimestampMs")
		m.State = body.int8("RemotePartitionDeleteState")
		m.StateName = stateName(RemotePartitionDeleteStates[:], m.State)
		body.tags(nil)
	case APIRemoteSegmentMetadataSnapshot:
		m.SegmentID = body.uuid("SegmentId")
		m.segmentBody(body)
	}
	if err := body.done(); err != nil {
		return m, err
	}
	m.complete = true
	return m, nil
}

// segmentID reads a RemoteLogSegmentIdEntry.
func (m *RemoteLogRecord) segmentID(c *cursor) {
	m.TopicPartition = topicIDPartition(c)
	m.SegmentID = c.uuid("RemoteLogSegmentId.Id")
	c.tags(nil)
}

func topicIDPartition(c *cursor) RemoteTopicPartition {
	var tp RemoteTopicPartition
	tp.Topic = c.string(true, "TopicIdPartition.Name")
	tp.TopicID = c.uuid("TopicIdPartition.Id")
	tp.Partition = c.int32("TopicIdPartition.Partition")
	c.tags(nil)
	return tp
}

// segmentBody reads the fields the metadata and snapshot records share,
// from StartOffset on, with the tagged TxnIndexEmpty (tag 0) at the end.
func (m *RemoteLogRecord) segmentBody(c *cursor) {
	m.StartOffset = c.int64("StartOffset")
	m.EndOffset = c.int64("EndOffset")
	m.BrokerID = c.int32("BrokerId")
	m.MaxTimeMs = c.int64("MaxTimestampMs")
	m.EventTimeMs = c.int64("EventTimestampMs")
	n := c.count(13, "SegmentLeaderEpochs")
	for i := 0; i < n && c.err == nil; i++ {
		e := RemoteEpoch{Epoch: c.int32("SegmentLeaderEpochs.LeaderEpoch"), Offset: c.int64("SegmentLeaderEpochs.Offset")}
		c.tags(nil)
		m.LeaderEpochs = append(m.LeaderEpochs, e)
	}
	m.SizeInBytes = c.int32("SegmentSizeInBytes")
	m.CustomMetadata = nullableBytes(c, "CustomMetadata")
	m.State = c.int8("RemoteLogSegmentState")
	m.StateName = stateName(RemoteSegmentStates[:], m.State)
	c.tags(func(tag uint32, f *cursor) {
		if tag == 0 {
			m.TxnIndexEmpty = f.bool("TxnIndexEmpty")
		}
	})
}

// KafkaText renders the record as kafka-dump-log's
// --remote-log-metadata-decoder prints it (the toString of Kafka's
// metadata classes).
func (m *RemoteLogRecord) KafkaText() string {
	tp := m.TopicPartition.TopicID.String() + ":" + m.TopicPartition.Topic + "-" + strconv.Itoa(int(m.TopicPartition.Partition))
	segID := "RemoteLogSegmentId{topicIdPartition=" + tp + ", id=" + m.SegmentID.String() + "}"
	custom := "Optional.empty"
	if m.CustomMetadata != nil {
		custom = "Optional[CustomMetadata{" + strconv.Itoa(len(m.CustomMetadata)) + " bytes}]"
	}
	switch m.APIKey {
	case APIRemoteSegmentMetadata:
		return fmt.Sprintf("RemoteLogSegmentMetadata{remoteLogSegmentId=%s, startOffset=%d, endOffset=%d, brokerId=%d, maxTimestampMs=%d, "+
			"eventTimestampMs=%d, segmentLeaderEpochs=%s, segmentSizeInBytes=%d, customMetadata=%s, state=%s, txnIdxEmpty=%t}",
			segID, m.StartOffset, m.EndOffset, m.BrokerID, m.MaxTimeMs, m.EventTimeMs, m.EpochText(), m.SizeInBytes, custom, m.StateName, m.TxnIndexEmpty)
	case APIRemoteSegmentMetadataSnapshot:
		return fmt.Sprintf("RemoteLogSegmentMetadataSnapshot{segmentId=%s, startOffset=%d, endOffset=%d, maxTimestampMs=%d, "+
			"segmentLeaderEpochs=%s, segmentSizeInBytes=%d, customMetadata=%s, state=%s}",
			m.SegmentID, m.StartOffset, m.EndOffset, m.MaxTimeMs, m.EpochText(), m.SizeInBytes, custom, m.StateName)
	case APIRemoteSegmentMetadataUpdate:
		return fmt.Sprintf("RemoteLogSegmentMetadataUpdate{remoteLogSegmentId=%s, customMetadata=%s, state=%s, eventTimestampMs=%d, brokerId=%d}",
			segID, custom, m.StateName, m.EventTimeMs, m.BrokerID)
	}
	return fmt.Sprintf("RemotePartitionDeleteMetadata{topicPartition=%s, state=%s, eventTimestampMs=%d, brokerId=%d}",
		tp, m.StateName, m.EventTimeMs, m.BrokerID)
}

// EpochText is a Java map's toString of the leader epochs: {0=0, 3=120}.
func (m *RemoteLogRecord) EpochText() string {
	parts := make([]string, 0, len(m.LeaderEpochs))
	for _, e := range m.LeaderEpochs {
		parts = append(parts, strconv.Itoa(int(e.Epoch))+"="+strconv.FormatInt(e.Offset, 10))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// nullableBytes reads a nullable compact bytes field into a copy (nil for
// null).
func nullableBytes(c *cursor, what string) []byte {
	if b := c.bytes(true, what); b != nil {
		return append([]byte{}, b...)
	}
	return nil
}
