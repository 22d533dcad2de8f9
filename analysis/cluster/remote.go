package cluster

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/topics"
)

// RemoteSegments folds the records of __remote_log_metadata into one row
// per remote segment: its RemoteLogSegmentMetadata, then each update's
// state, in log order. The metadata topic is replicated, so several
// inputs (brokers) may hold the same records: a segment's history is
// taken from the input that first names it, each copy's once.
type RemoteSegments struct {
	rows  []analysis.RemoteSegmentRow
	index map[topics.UUID]int
	// deleted holds the partitions a RemotePartitionDeleteMetadata names.
	deleted map[remotePartition]bool
}

type remotePartition struct {
	topicID   string
	partition int32
}

// NewRemoteSegments starts an empty fold.
func NewRemoteSegments() *RemoteSegments {
	return &RemoteSegments{index: map[topics.UUID]int{}, deleted: map[remotePartition]bool{}}
}

// Add folds one decoded record read at offset of file of input. An update
// whose segment's metadata was not read (retention of the metadata
// topic, or a copy of part of it) starts a row of its own, its offsets
// unknown (-1).
func (s *RemoteSegments) Add(input int32, file string, offset int64, m *topics.RemoteLogRecord) {
	switch m.APIKey {
	case topics.APIRemotePartitionDeleteMetadata:
		s.deleted[remotePartition{m.TopicPartition.TopicID.String(), m.TopicPartition.Partition}] = true
		return
	case topics.APIRemoteSegmentMetadata, topics.APIRemoteSegmentMetadataUpdate:
	default:
		return // snapshot records live in the manager's own files, not in the topic
	}
	i, ok := s.index[m.SegmentID]
	if !ok {
		i = len(s.rows)
		s.index[m.SegmentID] = i
		s.rows = append(s.rows, analysis.RemoteSegmentRow{Input: input, File: file, Offset: offset,
			Topic: m.TopicPartition.Topic, Partition: m.TopicPartition.Partition, TopicID: m.TopicPartition.TopicID.String(),
			SegmentID: m.SegmentID.String(), StartOffset: -1, EndOffset: -1, Broker: m.BrokerID})
	}
	r := &s.rows[i]
	if r.Input != input {
		return
	}
	if m.APIKey == topics.APIRemoteSegmentMetadata {
		r.StartOffset, r.EndOffset, r.Broker, r.SizeBytes = m.StartOffset, m.EndOffset, m.BrokerID, m.SizeInBytes
		r.LeaderEpochs = m.EpochText()
		r.TxnIndexEmpty = m.TxnIndexEmpty
		if m.MaxTimeMs >= 0 {
			r.MaxTimestamp = &m.MaxTimeMs
		}
	}
	if m.CustomMetadata != nil {
		n := int32(len(m.CustomMetadata))
		r.CustomMetadataBytes = &n
	}
	if r.States != "" {
		r.States += " > "
	}
	r.State = m.StateName
	r.States += m.StateName
	ev := m.EventTimeMs
	r.LastEvent = &ev
}

// Rows returns the segments, ordered by topic, partition and start
// offset, each marked held when its copy finished, no delete began, and
// its partition is not being deleted.
func (s *RemoteSegments) Rows(source func(int32) string) []analysis.RemoteSegmentRow {
	out := slices.Clone(s.rows)
	for i := range out {
		r := &out[i]
		if source != nil {
			r.Source = source(r.Input)
		}
		r.Held = r.State == topics.RemoteSegmentStates[topics.CopySegmentFinished] && r.StartOffset >= 0 &&
			!s.deleted[remotePartition{r.TopicID, r.Partition}]
	}
	slices.SortStableFunc(out, func(a, b analysis.RemoteSegmentRow) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.StartOffset, b.StartOffset))
	})
	return out
}

// MatchStore fills each row's files_present and size_match from the
// segments a remote store root holds, matched by segment id.
func MatchStore(rows []analysis.RemoteSegmentRow, store []analysis.RemoteStoreSegment) {
	by := make(map[string]*analysis.RemoteStoreSegment, len(store))
	for i := range store {
		by[store[i].SegmentID] = &store[i]
	}
	for i := range rows {
		r := &rows[i]
		present := ""
		if s := by[r.SegmentID]; s != nil {
			present = strings.Join(s.Files, ",")
			if s.HasLog() {
				match := s.LogSize == int64(r.SizeBytes)
				r.SizeMatch = &match
			}
		}
		r.FilesPresent = &present
	}
}
