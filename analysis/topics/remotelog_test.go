package topics_test

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/topics"
)

// remoteTP writes a TopicIdPartitionEntry.
func remoteTP(e *enc, topic string, id byte, partition int32) *enc {
	uuid := make([]byte, 16)
	uuid[15] = id
	return e.str(true, topic).raw(uuid).i32(partition).tags()
}

func segUUID(b byte) []byte { u := make([]byte, 16); u[0] = b; return u }

// A value a Kafka 4.4 broker wrote to __remote_log_metadata (tiered-clean
// scenario): the COPY_SEGMENT_STARTED metadata of segment 0..22, with
// TxnIndexEmpty in tag 0, and its COPY_SEGMENT_FINISHED update.
const (
	realSegmentMetadata = "01000007746965726564172dc6467970447d9e9428626c790cba0000000000f4d3948abd6448ae8818a45a3da9572c" +
		"000000000000000000000000000000001600000001000001a251ea87c4000001a251ea92ef0200000000000000000000000000000037b8000001000101"
	realSegmentUpdate = "01010007746965726564172dc6467970447d9e9428626c790cba0000000000f4d3948abd6448ae8818a45a3da9572c" +
		"0000000001000001a251ea9446000100"
)

func TestDecodeRemoteLogMetadataReal(t *testing.T) {
	b, _ := hex.DecodeString(realSegmentMetadata)
	m, err := topics.DecodeRemoteLogMetadata(b)
	if err != nil || !m.Complete() {
		t.Fatalf("decode: %v", err)
	}
	want := "RemoteLogSegmentMetadata{remoteLogSegmentId=RemoteLogSegmentId{topicIdPartition=Fy3GRnlwRH2elChibHkMug:tiered-0, " +
		"id=9NOUir1kSK6IGKRaPalXLA}, startOffset=0, endOffset=22, brokerId=1, maxTimestampMs=1796670654404, " +
		"eventTimestampMs=1796670657263, segmentLeaderEpochs={0=0}, segmentSizeInBytes=14264, customMetadata=Optional.empty, " +
		"state=COPY_SEGMENT_STARTED, txnIdxEmpty=true}"
	if got := m.KafkaText(); got != want {
		t.Errorf("text:\n got %s\nwant %s", got, want)
	}
	b, _ = hex.DecodeString(realSegmentUpdate)
	u, err := topics.DecodeRemoteLogMetadata(b)
	if err != nil || u.State != topics.CopySegmentFinished || u.SegmentID != m.SegmentID || u.TopicPartition != m.TopicPartition {
		t.Fatalf("update: %+v %v", u, err)
	}
}

func TestDecodeRemoteLogMetadataTypes(t *testing.T) {
	custom := []byte{1, 2, 3}
	snapshot := new(enc).uv(1).uv(3).uv(0).raw(segUUID(7)).
		i64(100).i64(199).i32(2).i64(5000).i64(6000).
		count(true, 2).i32(3).i64(100).tags().i32(4).i64(150).tags().
		i32(4096).bytes(true, custom).i8(1).tags()
	m, err := topics.DecodeRemoteLogMetadata(snapshot.b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Type != "RemoteLogSegmentMetadataSnapshot" || m.StartOffset != 100 || m.EndOffset != 199 || len(m.LeaderEpochs) != 2 ||
		m.LeaderEpochs[1] != (topics.RemoteEpoch{Epoch: 4, Offset: 150}) || string(m.CustomMetadata) != string(custom) ||
		m.StateName != "COPY_SEGMENT_FINISHED" || m.TxnIndexEmpty || m.SizeInBytes != 4096 {
		t.Errorf("snapshot: %+v", m)
	}
	want := "RemoteLogSegmentMetadataSnapshot{segmentId=BwAAAAAAAAAAAAAAAAAAAA, startOffset=100, endOffset=199, maxTimestampMs=5000, " +
		"segmentLeaderEpochs={3=100, 4=150}, segmentSizeInBytes=4096, customMetadata=Optional[CustomMetadata{3 bytes}], state=COPY_SEGMENT_FINISHED}"
	if got := m.KafkaText(); got != want {
		t.Errorf("snapshot text:\n got %s\nwant %s", got, want)
	}

	del := remoteTP(new(enc).uv(1).uv(2).uv(0), "gone", 9, 3).i32(100).i64(7000).i8(2).tags()
	d, err := topics.DecodeRemoteLogMetadata(del.b)
	if err != nil || d.TopicPartition.Topic != "gone" || d.TopicPartition.Partition != 3 || d.StateName != "DELETE_PARTITION_FINISHED" || d.BrokerID != 100 {
		t.Fatalf("partition delete: %+v %v", d, err)
	}
	if got := d.KafkaText(); got != "RemotePartitionDeleteMetadata{topicPartition=AAAAAAAAAAAAAAAAAAAACQ:gone-3, state=DELETE_PARTITION_FINISHED, "+
		"eventTimestampMs=7000, brokerId=100}" {
		t.Errorf("partition delete text: %s", got)
	}

	upd := remoteTP(new(enc).uv(1).uv(1).uv(0), "t", 1, 0).raw(segUUID(2)).tags().i32(1).i64(8000).bytes(true, nil).i8(3).tags()
	u, err := topics.DecodeRemoteLogMetadata(upd.b)
	if err != nil || u.StateName != "DELETE_SEGMENT_FINISHED" || u.CustomMetadata != nil {
		t.Fatalf("update: %+v %v", u, err)
	}
}

func TestDecodeRemoteLogMetadataErrors(t *testing.T) {
	if _, err := topics.DecodeRemoteLogMetadata(new(enc).uv(1).uv(4).uv(0).b); !errors.Is(err, topics.ErrUnknownType) {
		t.Errorf("apiKey 4: %v", err)
	}
	var ve *topics.VersionError
	if _, err := topics.DecodeRemoteLogMetadata(new(enc).uv(1).uv(1).uv(1).b); !errors.As(err, &ve) {
		t.Errorf("version 1: %v", err)
	}
	b, _ := hex.DecodeString(realSegmentUpdate)
	if m, err := topics.DecodeRemoteLogMetadata(b[:len(b)-3]); err == nil || m.Complete() {
		t.Errorf("truncated: %v", err)
	}
	if _, err := topics.DecodeRemoteLogMetadata(nil); !errors.Is(err, topics.ErrMalformed) {
		t.Errorf("null: %v", err)
	}
}

func TestTopicOfRemoteLogMetadata(t *testing.T) {
	if got := topics.TopicOf("__remote_log_metadata-12"); got != topics.RemoteLogMetadata {
		t.Errorf("TopicOf = %v", got)
	}
}
