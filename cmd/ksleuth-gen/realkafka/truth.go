package realkafka

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Truth is a scenario's ground truth, written as truth.json: what the
// producing side did, matched to what a consumer read back from the log.
type Truth struct {
	Scenario     string        `json:"scenario"`
	KafkaVersion string        `json:"kafka_version"`
	Stop         string        `json:"stop"` // clean, kill or live-copy
	Brokers      []TruthBroker `json:"brokers"`
	// RemoteRoots are the tiered scenarios' remote storage roots, relative
	// to the output dir.
	RemoteRoots []string `json:"remote_roots,omitempty"`
	// RemoteSegments are the remote segments a tiered scenario damaged by
	// hand or whose copy it made fail: what ksleuth must find on each.
	RemoteSegments []TruthRemoteSegment `json:"remote_segments,omitempty"`
	// DeletedTopics were deleted by the scenario: their partitions are
	// gone on purpose, not lost.
	DeletedTopics []string      `json:"deleted_topics,omitempty"`
	Records       []TruthRecord `json:"records"`
	Resends       []TruthResend `json:"resends"`
	Lost          []TruthLost   `json:"lost"`
	// Commits, Consumed and OffsetDeletes are the consumer groups' side:
	// every offset commit the applications sent (one entry per
	// partition), every record they processed, and every committed
	// offset removed through the admin API.
	Commits       []TruthCommit       `json:"commits"`
	Consumed      []TruthConsumed     `json:"consumed"`
	OffsetDeletes []TruthOffsetDelete `json:"offset_deletes"`
	// Pipelines names the consume-transform-produce applications a run
	// hands to dups, as GROUP:INPUT:OUTPUT; most scenarios have none, and
	// some leave theirs for dups to find.
	Pipelines []string `json:"pipelines,omitempty"`
}

// TruthBroker names a broker's log dir, relative to the output dir.
type TruthBroker struct {
	NodeID int    `json:"node_id"`
	LogDir string `json:"log_dir"`
}

// TruthRecord is one data record in the log (control records excluded).
type TruthRecord struct {
	Topic         string `json:"topic"`
	Partition     int32  `json:"partition"`
	Offset        int64  `json:"offset"`
	ProducerID    int64  `json:"producer_id"`
	ProducerEpoch int16  `json:"producer_epoch"`
	Txn           bool   `json:"txn"`
}

// Loc is a record's place.
type Loc struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
}

// Resend kinds.
const (
	KindRestartResend = "restart-resend"
	KindTxnRetry      = "txn-retry"
	KindAppRepeat     = "app-repeat"
	// KindRetry: a client without idempotence sent a batch again after
	// its request failed; the application sent the record once.
	KindRetry = "retry"
)

// TruthResend is a later copy of a record the application sent again.
type TruthResend struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
	Of        Loc    `json:"of"`
	Kind      string `json:"kind"`
	// Group and Input: for an application's output produced again
	// (reprocess, rebalance), the group that read the input record and
	// where that record is.
	Group string `json:"group,omitempty"`
	Input *Loc   `json:"input,omitempty"`
}

// TruthLost is a run of acknowledged offsets no longer in the log.
type TruthLost struct {
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"`
	FirstOffset int64  `json:"first_offset"`
	LastOffset  int64  `json:"last_offset"`
	Why         string `json:"why"`
}

// Harms done to a remote segment (TruthRemoteSegment.Harm).
const (
	// RemoteDeleted: every file of the segment was removed from the
	// remote store while __remote_log_metadata still holds it.
	RemoteDeleted = "deleted"
	// RemoteTruncated: the segment's .log was cut inside a batch.
	RemoteTruncated = "truncated"
	// RemoteUnfinished: the broker died while copying the segment; the
	// metadata has its COPY_SEGMENT_STARTED and nothing after, and the
	// files it had copied stay in the store.
	RemoteUnfinished = "unfinished-copy"
)

// TruthRemoteSegment is one remote segment a scenario harmed.
type TruthRemoteSegment struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	SegmentID string `json:"segment_id"`
	// StartOffset is the segment's first offset, from its file name.
	StartOffset int64 `json:"start_offset"`
	// File is the segment's .log, relative to the remote root.
	File string `json:"file"`
	Harm string `json:"harm"`
}

// TruthCommit is the commit of one partition's offset by a group, in
// the order the application sent it. Acked is whether the coordinator
// answered it without an error for that partition.
type TruthCommit struct {
	Group       string `json:"group"`
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"`
	Offset      int64  `json:"offset"`
	LeaderEpoch int32  `json:"leader_epoch"`
	Metadata    string `json:"metadata"`
	Acked       bool   `json:"acked"`
}

// TruthConsumed is one record a group's application processed, by its
// place in the data topic; a record read twice (after a rebalance or a
// restart from an older commit) is listed twice.
type TruthConsumed struct {
	Group     string `json:"group"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
	// Gone: the record processed is no longer at its offset in the log
	// read back at the end (an unclean election put another record
	// there, or nothing is there any more).
	Gone    bool `json:"gone"`
	content string
}

// TruthOffsetDelete is a group's committed offset of one partition
// deleted through the admin API (OffsetDelete): the coordinator writes a
// tombstone for it.
type TruthOffsetDelete struct {
	Group     string `json:"group"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

// ReadTruth reads a truth.json.
func ReadTruth(path string) (*Truth, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t Truth
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &t, nil
}

// WriteFile writes the truth as indented JSON.
func (t *Truth) WriteFile(path string) error {
	data, err := json.MarshalIndent(t, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// consumed is a record read back, with the content it is matched on.
type consumed struct {
	rec     TruthRecord
	content string
	ts      time.Time
}

// readBack reads every data record of the topics from the log start to
// the high watermark, uncommitted ones included (aborted transactions
// are in the log too).
func readBack(ctx context.Context, c *Cluster, topics map[string]int) ([]consumed, error) {
	cl, err := c.Client()
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	start, end, err := listOffsets(ctx, cl, topics)
	if err != nil {
		return nil, err
	}
	want := map[string]map[int32]kgo.Offset{}
	pending := map[Loc]int64{} // partition -> end
	for tp, s := range start {
		if end[tp] > s {
			if want[tp.Topic] == nil {
				want[tp.Topic] = map[int32]kgo.Offset{}
			}
			want[tp.Topic][tp.Partition] = kgo.NewOffset().At(s)
			pending[tp] = end[tp]
		}
	}
	if len(pending) == 0 {
		return nil, nil
	}
	cons, err := c.Client(kgo.ConsumePartitions(want), kgo.FetchIsolationLevel(kgo.ReadUncommitted()), kgo.KeepControlRecords())
	if err != nil {
		return nil, err
	}
	defer cons.Close()
	var out []consumed
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for len(pending) > 0 {
		fs := cons.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("read back: %d partitions short of their high watermark: %v", len(pending), pending)
		}
		if err := fs.Err0(); err != nil {
			return nil, fmt.Errorf("read back: %w", err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			tp := Loc{Topic: r.Topic, Partition: r.Partition}
			if e, ok := pending[tp]; ok && r.Offset+1 >= e {
				delete(pending, tp)
			}
			if r.Attrs.IsControl() {
				return
			}
			out = append(out, consumed{
				rec: TruthRecord{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, ProducerID: r.ProducerID,
					ProducerEpoch: r.ProducerEpoch, Txn: r.Attrs.IsTransactional()},
				content: contentKey(r.Key, r.Value, kgoHeaders(r.Headers)),
				ts:      r.Timestamp,
			})
		})
	}
	slices.SortFunc(out, func(a, b consumed) int {
		return cmp.Or(cmp.Compare(a.rec.Topic, b.rec.Topic), cmp.Compare(a.rec.Partition, b.rec.Partition), cmp.Compare(a.rec.Offset, b.rec.Offset))
	})
	return out, nil
}

func kgoHeaders(hs []kgo.RecordHeader) []Header {
	out := make([]Header, len(hs))
	for i, h := range hs {
		out[i] = Header{Key: h.Key, Value: h.Value}
	}
	return out
}

// contentKey is what makes two records copies of each other: key, value
// and headers, with null and empty kept apart.
func contentKey(key, value []byte, hs []Header) string {
	if len(hs) == 0 {
		hs = nil
	}
	b, _ := json.Marshal(struct {
		K, V []byte
		KN   bool
		VN   bool
		H    []Header
	}{key, value, key == nil, value == nil, hs})
	return string(b)
}

// listOffsets returns the log start and end offsets of every partition.
func listOffsets(ctx context.Context, cl *kgo.Client, topics map[string]int) (start, end map[Loc]int64, err error) {
	start, end = map[Loc]int64{}, map[Loc]int64{}
	for _, ts := range []int64{-2, -1} {
		req := kmsg.NewPtrListOffsetsRequest()
		req.ReplicaID = -1
		for _, topic := range slices.Sorted(maps.Keys(topics)) {
			rt := kmsg.NewListOffsetsRequestTopic()
			rt.Topic = topic
			for p := range topics[topic] {
				rp := kmsg.NewListOffsetsRequestTopicPartition()
				rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = int32(p), ts, -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			req.Topics = append(req.Topics, rt)
		}
		shards := cl.RequestSharded(ctx, req)
		for _, sh := range shards {
			if sh.Err != nil {
				return nil, nil, fmt.Errorf("list offsets: %w", sh.Err)
			}
			resp := sh.Resp.(*kmsg.ListOffsetsResponse)
			for _, t := range resp.Topics {
				for _, p := range t.Partitions {
					if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
						return nil, nil, fmt.Errorf("list offsets %s-%d: %w", t.Topic, p.Partition, err)
					}
					l := Loc{Topic: t.Topic, Partition: p.Partition}
					if ts == -2 {
						start[l] = p.Offset
					} else {
						end[l] = p.Offset
					}
				}
			}
		}
	}
	return start, end, nil
}
