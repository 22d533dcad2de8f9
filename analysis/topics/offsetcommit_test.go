package topics

import (
	"encoding/binary"
	"testing"
)

// TestOffsetCommitValueV4TopicID: version 4's tagged topicId is decoded.
func TestOffsetCommitValueV4TopicID(t *testing.T) {
	var b []byte
	b = binary.BigEndian.AppendUint16(b, 4)
	b = binary.BigEndian.AppendUint64(b, 1234)          // offset
	b = binary.BigEndian.AppendUint32(b, 7)             // leaderEpoch
	b = append(b, 3, 'm', 'd')                          // metadata "md", compact
	b = binary.BigEndian.AppendUint64(b, 1700000000000) // commitTimestamp
	id := UUID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	b = append(b, 1, 0, 16) // one tagged field: tag 0, 16 bytes
	b = append(b, id[:]...)
	v, err := DecodeOffsetCommitValue(b)
	if err != nil {
		t.Fatal(err)
	}
	if v.Offset != 1234 || v.LeaderEpoch != 7 || v.Metadata != "md" || v.TopicID == nil || *v.TopicID != id {
		t.Fatalf("%+v", v)
	}
	// Without the tag, no topic id.
	b2 := append(b[:len(b)-19:len(b)-19], 0)
	if v, err := DecodeOffsetCommitValue(b2); err != nil || v.TopicID != nil {
		t.Fatalf("untagged: %+v %v", v, err)
	}
}
