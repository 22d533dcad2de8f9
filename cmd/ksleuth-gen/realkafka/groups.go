package realkafka

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// GroupConsumer is one application instance in a consumer group: a
// franz-go group member (classic protocol) that commits by hand, so that
// the App knows every commit it sent, what it carried and whether the
// coordinator took it.
type GroupConsumer struct {
	Group string
	s     *Session
	cl    *kgo.Client
	// done is the next offset to commit per partition: one past the last
	// record processed, with that record's leader epoch; dirty marks the
	// partitions processed since the last commit.
	done  map[Loc]kgo.EpochOffset
	dirty map[Loc]bool
	// Metadata names the commits: commit n carries "METADATA-n", or ""
	// when Metadata is "".
	Metadata string
	commits  int
}

// joinGroup starts a member of group consuming topics from the log start
// when the group has no committed offset.
func (s *Session) joinGroup(group, metadata string, topics ...string) (*GroupConsumer, error) {
	cl, err := s.Cluster.Client(kgo.ConsumerGroup(group), kgo.ConsumeTopics(topics...), kgo.DisableAutoCommit(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(200*time.Millisecond),
		kgo.ClientID("app-"+group))
	if err != nil {
		return nil, err
	}
	return &GroupConsumer{Group: group, s: s, cl: cl, done: map[Loc]kgo.EpochOffset{}, dirty: map[Loc]bool{}, Metadata: metadata}, nil
}

// Poll waits up to wait for at most max records and processes them:
// each is noted as consumed by the group. It returns how many it got.
func (g *GroupConsumer) Poll(max int, wait time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(g.s.Ctx, wait)
	fs := g.cl.PollRecords(ctx, max)
	cancel()
	if err := g.s.Ctx.Err(); err != nil {
		return 0, err
	}
	var ferr error
	fs.EachError(func(topic string, p int32, err error) {
		if ferr == nil && !isTimeout(err) {
			ferr = fmt.Errorf("group %s: fetch %s-%d: %w", g.Group, topic, p, err)
		}
	})
	if ferr != nil {
		return 0, ferr
	}
	var got []TruthConsumed
	fs.EachRecord(func(r *kgo.Record) {
		l := Loc{Topic: r.Topic, Partition: r.Partition}
		g.done[l] = kgo.EpochOffset{Epoch: r.LeaderEpoch, Offset: r.Offset + 1}
		g.dirty[l] = true
		got = append(got, TruthConsumed{Group: g.Group, Topic: r.Topic, Partition: r.Partition, Offset: r.Offset,
			content: contentKey(r.Key, r.Value, kgoHeaders(r.Headers))})
	})
	a := g.s.App
	a.mu.Lock()
	a.consumed = append(a.consumed, got...)
	a.mu.Unlock()
	return len(got), nil
}

// isTimeout is the end of a poll's wait, which is no fetch error.
func isTimeout(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// Drain polls until nothing has come for idle, committing after every
// poll that returned records when eager, and once at the end otherwise.
func (g *GroupConsumer) Drain(idle time.Duration, eager bool) (int, error) {
	n := 0
	last := time.Now()
	for time.Since(last) < idle {
		k, err := g.Poll(500, 500*time.Millisecond)
		if err != nil {
			return n, err
		}
		if k == 0 {
			continue
		}
		n += k
		last = time.Now()
		if eager {
			if err := g.Commit(); err != nil {
				return n, err
			}
		}
	}
	return n, g.Commit()
}

// Commit commits the partitions processed since the last commit, one
// OffsetCommit request, and notes each partition's commit with its ack.
func (g *GroupConsumer) Commit() error {
	if len(g.dirty) == 0 {
		return nil
	}
	g.commits++
	meta := g.Metadata
	if meta != "" {
		meta = fmt.Sprintf("%s-%d", meta, g.commits)
	}
	offsets := map[string]map[int32]kgo.EpochOffset{}
	var sent []TruthCommit
	for _, l := range slices.SortedFunc(maps.Keys(g.dirty), cmpLoc) {
		eo := g.done[l]
		if offsets[l.Topic] == nil {
			offsets[l.Topic] = map[int32]kgo.EpochOffset{}
		}
		offsets[l.Topic][l.Partition] = eo
		sent = append(sent, TruthCommit{Group: g.Group, Topic: l.Topic, Partition: l.Partition, Offset: eo.Offset,
			LeaderEpoch: eo.Epoch, Metadata: meta})
	}
	// The metadata goes in just before the request is issued.
	ctx := kgo.PreCommitFnContext(g.s.Ctx, func(req *kmsg.OffsetCommitRequest) error {
		for i := range req.Topics {
			for j := range req.Topics[i].Partitions {
				req.Topics[i].Partitions[j].Metadata = kmsg.StringPtr(meta)
			}
		}
		return nil
	})
	var cerr error
	g.cl.CommitOffsetsSync(ctx, offsets, func(_ *kgo.Client, req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		if err != nil {
			cerr = err
			return
		}
		names := map[[16]byte]string{}
		for _, t := range req.Topics {
			names[t.TopicID] = t.Topic
		}
		for _, t := range resp.Topics {
			topic := t.Topic
			if topic == "" {
				topic = names[t.TopicID]
			}
			for _, p := range t.Partitions {
				if perr := kerr.ErrorForCode(p.ErrorCode); perr != nil {
					cerr = fmt.Errorf("%s-%d: %w", topic, p.Partition, perr)
					continue
				}
				for i := range sent {
					if sent[i].Topic == topic && sent[i].Partition == p.Partition {
						sent[i].Acked = true
					}
				}
			}
		}
	})
	a := g.s.App
	a.mu.Lock()
	a.commits = append(a.commits, sent...)
	a.mu.Unlock()
	clear(g.dirty)
	if cerr != nil {
		return fmt.Errorf("group %s commit %d: %w", g.Group, g.commits, cerr)
	}
	return nil
}

// Close leaves the group (its committed offsets stay).
func (g *GroupConsumer) Close() { g.cl.Close() }

// DeleteOffsets removes a group's committed offsets of some partitions of
// topic through the admin API (OffsetDelete); the group must have no
// member subscribed to topic.
func (s *Session) DeleteOffsets(group, topic string, partitions ...int32) error {
	cl, err := s.Cluster.Client()
	if err != nil {
		return err
	}
	defer cl.Close()
	req := kmsg.NewPtrOffsetDeleteRequest()
	req.Group = group
	rt := kmsg.NewOffsetDeleteRequestTopic()
	rt.Topic = topic
	for _, p := range partitions {
		rp := kmsg.NewOffsetDeleteRequestTopicPartition()
		rp.Partition = p
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(s.Ctx, cl)
	if err != nil {
		return fmt.Errorf("offset delete %s: %w", group, err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return fmt.Errorf("offset delete %s: %w", group, err)
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return fmt.Errorf("offset delete %s %s-%d: %w", group, t.Topic, p.Partition, err)
			}
			s.App.mu.Lock()
			s.App.offsetDeletes = append(s.App.offsetDeletes, TruthOffsetDelete{Group: group, Topic: t.Topic, Partition: p.Partition})
			s.App.mu.Unlock()
		}
	}
	return nil
}

func cmpLoc(x, y Loc) int {
	return cmp.Or(cmp.Compare(x.Topic, y.Topic), cmp.Compare(x.Partition, y.Partition), cmp.Compare(x.Offset, y.Offset))
}

// groupTruth is the groups' side of the truth, as lists (never null).
func (a *App) groupTruth() ([]TruthCommit, []TruthConsumed, []TruthOffsetDelete) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return nonNil(slices.Clone(a.commits)), nonNil(slices.Clone(a.consumed)), nonNil(slices.Clone(a.offsetDeletes))
}

// ZombieCommit sends, outside the client's group membership, the commit
// a consumer would send after the group moved on without it: a member id
// the coordinator does not know, so it refuses the commit and writes
// nothing. The commit is noted, unacknowledged, with its answer.
func (s *Session) ZombieCommit(group, topic string, partition int32, offset int64, metadata string) error {
	cl, err := s.Cluster.Client()
	if err != nil {
		return err
	}
	defer cl.Close()
	// OffsetCommit v10 names a topic by its id, older versions by name.
	mreq := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(topic)
	mreq.Topics = append(mreq.Topics, mt)
	mresp, err := mreq.RequestWith(s.Ctx, cl)
	if err != nil {
		return err
	}
	if len(mresp.Topics) != 1 {
		return fmt.Errorf("zombie commit: metadata of %s: %d topics", topic, len(mresp.Topics))
	}
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Group, req.Generation, req.MemberID = group, 1, "app-"+group+"-zombie"
	rt := kmsg.NewOffsetCommitRequestTopic()
	rt.Topic, rt.TopicID = topic, mresp.Topics[0].TopicID
	rp := kmsg.NewOffsetCommitRequestTopicPartition()
	rp.Partition, rp.Offset, rp.LeaderEpoch, rp.Metadata = partition, offset, -1, kmsg.StringPtr(metadata)
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(s.Ctx, cl)
	if err != nil {
		return fmt.Errorf("zombie commit: %w", err)
	}
	answer := "no answer for the partition"
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if p.Partition == partition {
				answer = "accepted"
				if perr := kerr.ErrorForCode(p.ErrorCode); perr != nil {
					answer = perr.Error()
				}
			}
		}
	}
	if answer == "accepted" {
		return fmt.Errorf("zombie commit of %s %s-%d: the coordinator accepted a commit from an unknown member", group, topic, partition)
	}
	s.Logf("group %s: zombie commit of %s-%d at %d refused: %s", group, topic, partition, offset, answer)
	s.App.mu.Lock()
	s.App.commits = append(s.App.commits, TruthCommit{Group: group, Topic: topic, Partition: partition, Offset: offset,
		LeaderEpoch: -1, Metadata: metadata})
	s.App.mu.Unlock()
	return nil
}
