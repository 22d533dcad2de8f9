package cluster_test

import (
	"testing"

	"github.com/ksleuth/ksleuth/analysis/cluster"
	"github.com/ksleuth/ksleuth/analysis/topics"
)

// TestRemoteSegmentsFold: a segment's metadata and its updates fold into
// one row with its state history; only a finished copy of a partition
// not being deleted is held; a replica of the metadata topic on another
// input adds no history twice.
func TestRemoteSegmentsFold(t *testing.T) {
	tp := topics.RemoteTopicPartition{Topic: "t", TopicID: topics.UUID{1}, Partition: 0}
	gone := topics.RemoteTopicPartition{Topic: "gone", TopicID: topics.UUID{2}, Partition: 0}
	seg := func(id byte, p topics.RemoteTopicPartition, start, end int64) *topics.RemoteLogRecord {
		return &topics.RemoteLogRecord{APIKey: topics.APIRemoteSegmentMetadata, TopicPartition: p, SegmentID: topics.UUID{id},
			StartOffset: start, EndOffset: end, BrokerID: 1, SizeInBytes: 100, MaxTimeMs: 5, StateName: "COPY_SEGMENT_STARTED",
			LeaderEpochs: []topics.RemoteEpoch{{Epoch: 0, Offset: start}}}
	}
	upd := func(id byte, p topics.RemoteTopicPartition, state int8) *topics.RemoteLogRecord {
		return &topics.RemoteLogRecord{APIKey: topics.APIRemoteSegmentMetadataUpdate, TopicPartition: p, SegmentID: topics.UUID{id},
			State: state, StateName: topics.RemoteSegmentStates[state], EventTimeMs: 9}
	}
	s := cluster.NewRemoteSegments()
	s.Add(0, "m.log", 0, seg(2, tp, 10, 19))
	s.Add(0, "m.log", 1, seg(1, tp, 0, 9))
	s.Add(0, "m.log", 2, upd(1, tp, topics.CopySegmentFinished))
	s.Add(1, "m.log", 2, upd(1, tp, topics.CopySegmentFinished)) // the same record on another broker
	s.Add(0, "m.log", 3, upd(2, tp, topics.CopySegmentFinished))
	s.Add(0, "m.log", 4, upd(2, tp, topics.DeleteSegmentStarted))
	s.Add(0, "m.log", 5, seg(3, gone, 0, 4))
	s.Add(0, "m.log", 6, upd(3, gone, topics.CopySegmentFinished))
	s.Add(0, "m.log", 7, &topics.RemoteLogRecord{APIKey: topics.APIRemotePartitionDeleteMetadata, TopicPartition: gone, StateName: "DELETE_PARTITION_MARKED"})
	rows := s.Rows(func(int32) string { return "b1" })
	if len(rows) != 3 {
		t.Fatalf("rows %+v, want 3", rows)
	}
	type want struct {
		topic  string
		start  int64
		states string
		held   bool
	}
	for i, w := range []want{
		{"gone", 0, "COPY_SEGMENT_STARTED > COPY_SEGMENT_FINISHED", false},
		{"t", 0, "COPY_SEGMENT_STARTED > COPY_SEGMENT_FINISHED", true},
		{"t", 10, "COPY_SEGMENT_STARTED > COPY_SEGMENT_FINISHED > DELETE_SEGMENT_STARTED", false},
	} {
		r := rows[i]
		if r.Topic != w.topic || r.StartOffset != w.start || r.States != w.states || r.Held != w.held || r.Source != "b1" || r.LeaderEpochs == "" {
			t.Errorf("row %d: %+v, want %+v", i, r, w)
		}
	}
}
