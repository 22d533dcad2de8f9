package realkafka

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// App is the application side of a scenario: it remembers every record
// it sent, with why it sent it, and what the broker acknowledged.
type App struct {
	mu     sync.Mutex
	sends  []*Sent
	byID   map[string]*Sent
	msgs   map[string]*message
	topics map[string]int
	n      int
	// nonIdem names the producers without idempotence: their client
	// retries on its own, so a record they sent once may be in the log
	// twice (KindRetry).
	nonIdem map[string]bool
	// dropped are the topics the scenario deleted: nothing of them is
	// read back, and their sends are not lost.
	dropped map[string]bool
	// The consumer groups' side (groups.go).
	commits       []TruthCommit
	consumed      []TruthConsumed
	offsetDeletes []TruthOffsetDelete
	// The consume-transform-produce applications' side (ctptruth.go):
	// the later copies of their outputs by their own logs, and the
	// pipelines as GROUP:INPUT:OUTPUT.
	logCopies map[Loc]string
	pipelines []string
	// LostWhy explains acknowledged offsets no longer in the log;
	// scenarios that remove records on purpose set it.
	LostWhy func(topic string, partition int32, offset int64) string
}

// Sent is one send of a record.
type Sent struct {
	ID        string
	Msg       string
	Kind      string // "" for a first send, else a resend kind
	Producer  string
	Topic     string
	Partition int32
	Acked     bool
	Ack       Ack
}

// message is one logical record, which the application may send more
// than once, always with the same content.
type message struct {
	name    string
	content string
	kind    string
	rec     Record
	// group and input: an application's output, by the group that read
	// its input record and that record's place.
	group string
	input *Loc
}

func newApp() *App {
	return &App{byID: map[string]*Sent{}, msgs: map[string]*message{}, topics: map[string]int{}, nonIdem: map[string]bool{}, dropped: map[string]bool{}}
}

// Topic records a topic of the scenario and its partition count.
func (a *App) Topic(name string, partitions int) {
	a.mu.Lock()
	a.topics[name] = partitions
	a.mu.Unlock()
}

// DropTopic forgets a topic the scenario deleted.
func (a *App) DropTopic(name string) {
	a.mu.Lock()
	delete(a.topics, name)
	a.dropped[name] = true
	a.mu.Unlock()
}

// Record is a logical record's content.
type Record struct {
	Msg        string // logical name; a resend repeats it
	Topic      string
	Partition  int32
	Key, Value []byte
	Headers    []Header
	// Time is the record's CreateTime when a franz-go client sends it
	// (SendKgo); zero is the client's clock. It is not content.
	Time time.Time
}

// Send sends r through jp; kind is "" for a first send, else why the
// application sends r again.
func (a *App) Send(jp *JavaProducer, r Record, kind string) error {
	s, err := a.note(jp.Name, r, kind)
	if err != nil {
		return err
	}
	return jp.Send(s.ID, r.Topic, r.Partition, r.Key, r.Value, r.Headers)
}

// note registers a send done by any client (Java or franz-go).
func (a *App) note(producer string, r Record, kind string) (*Sent, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	content := contentKey(r.Key, r.Value, r.Headers)
	m := a.msgs[r.Msg]
	switch {
	case m == nil:
		m = &message{name: r.Msg, content: content, kind: kind, rec: r}
		if kind == "" && a.nonIdem[producer] {
			m.kind = KindRetry
		}
		a.msgs[r.Msg] = m
	case m.content != content:
		return nil, fmt.Errorf("message %s sent again with other content", r.Msg)
	case kind != "" && m.kind != "" && m.kind != kind:
		return nil, fmt.Errorf("message %s resent as %s and as %s", r.Msg, m.kind, kind)
	case kind != "":
		m.kind = kind
	}
	a.n++
	s := &Sent{ID: fmt.Sprintf("s%d", a.n), Msg: r.Msg, Kind: kind, Producer: producer, Topic: r.Topic, Partition: r.Partition}
	a.sends = append(a.sends, s)
	a.byID[s.ID] = s
	return s, nil
}

// NonIdempotent marks producer as one without idempotence, whose client
// may append a record it was given once twice: a copy of its records in
// the log is a retry, not the application's.
func (a *App) NonIdempotent(producer string) {
	a.mu.Lock()
	a.nonIdem[producer] = true
	a.mu.Unlock()
}

// Collect takes in the acks jp received.
func (a *App) Collect(jp *JavaProducer) {
	acks := jp.Acks()
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, ack := range acks {
		if s := a.byID[id]; s != nil && ack.Err == "" {
			s.Acked, s.Ack = true, ack
		}
	}
}

// Unacked lists, in send order, what jp sent without an ack: after a
// crash, the tail the application resends.
func (a *App) Unacked(jp *JavaProducer) []*Sent {
	a.Collect(jp)
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*Sent
	for _, s := range a.sends {
		if s.Producer == jp.Name && !s.Acked {
			out = append(out, s)
		}
	}
	return out
}

// Resend sends an earlier send's record again through jp.
func (a *App) Resend(jp *JavaProducer, s *Sent, kind string) error {
	a.mu.Lock()
	r := a.msgs[s.Msg].rec
	a.mu.Unlock()
	return a.Send(jp, r, kind)
}

// SendKgo sends r synchronously through a franz-go client, named
// producer in the bookkeeping.
func (a *App) SendKgo(ctx context.Context, cl *kgo.Client, producer string, r Record, kind string) error {
	s, err := a.note(producer, r, kind)
	if err != nil {
		return err
	}
	kr := &kgo.Record{Topic: r.Topic, Partition: r.Partition, Key: r.Key, Value: r.Value, Timestamp: r.Time}
	for _, h := range r.Headers {
		kr.Headers = append(kr.Headers, kgo.RecordHeader{Key: h.Key, Value: h.Value})
	}
	res, err := cl.ProduceSync(ctx, kr).First()
	if err != nil {
		return fmt.Errorf("%s: produce %s: %w", producer, r.Msg, err)
	}
	a.mu.Lock()
	s.Acked, s.Ack = true, Ack{Partition: res.Partition, Offset: res.Offset}
	a.mu.Unlock()
	return nil
}

// truth matches what was read back to what was sent.
func (a *App) truth(ctx context.Context, c *Cluster) (records []TruthRecord, resends []TruthResend, lost []TruthLost, err error) {
	got, err := readBack(ctx, c, a.topics)
	if err != nil {
		return nil, nil, nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	byContent := map[string]*message{}
	for _, m := range a.msgs {
		byContent[m.content] = m
	}
	copies := map[string][]consumed{}
	present := map[Loc]string{} // content at each offset
	for _, g := range got {
		m := byContent[g.content]
		if m == nil {
			return nil, nil, nil, fmt.Errorf("%s-%d@%d: a record no producer of the scenario sent", g.rec.Topic, g.rec.Partition, g.rec.Offset)
		}
		records = append(records, g.rec)
		copies[m.name] = append(copies[m.name], g)
		present[Loc{g.rec.Topic, g.rec.Partition, g.rec.Offset}] = g.content
	}
	for name, cs := range copies {
		m := a.msgs[name]
		if len(cs) < 2 {
			continue
		}
		if m.kind == "" {
			return nil, nil, nil, fmt.Errorf("message %s sent once is in the log %d times", name, len(cs))
		}
		// The first copy in time is the original; within a partition
		// offsets give the order.
		slices.SortStableFunc(cs, func(x, y consumed) int {
			if x.rec.Topic == y.rec.Topic && x.rec.Partition == y.rec.Partition {
				return cmp.Compare(x.rec.Offset, y.rec.Offset)
			}
			return x.ts.Compare(y.ts)
		})
		first := Loc{cs[0].rec.Topic, cs[0].rec.Partition, cs[0].rec.Offset}
		for _, c := range cs[1:] {
			resends = append(resends, TruthResend{Topic: c.rec.Topic, Partition: c.rec.Partition, Offset: c.rec.Offset, Of: first, Kind: m.kind,
				Group: m.group, Input: m.input})
		}
	}
	slices.SortFunc(resends, func(x, y TruthResend) int {
		return cmp.Or(cmp.Compare(x.Topic, y.Topic), cmp.Compare(x.Partition, y.Partition), cmp.Compare(x.Offset, y.Offset))
	})
	if err := a.checkLogCopies(resends); err != nil {
		return nil, nil, nil, err
	}
	// What a group processed is gone in the same way.
	for i := range a.consumed {
		c := &a.consumed[i]
		if content, ok := present[Loc{c.Topic, c.Partition, c.Offset}]; !ok || content != c.content {
			c.Gone = true
		}
	}
	// An acknowledged send is lost when its offset is gone or, after an
	// unclean election, holds another record.
	var gone []Loc
	for _, s := range a.sends {
		l := Loc{s.Topic, s.Ack.Partition, s.Ack.Offset}
		if a.dropped[s.Topic] {
			continue
		}
		if c, ok := present[l]; s.Acked && (!ok || c != a.msgs[s.Msg].content) {
			gone = append(gone, l)
		}
	}
	slices.SortFunc(gone, func(x, y Loc) int {
		return cmp.Or(cmp.Compare(x.Topic, y.Topic), cmp.Compare(x.Partition, y.Partition), cmp.Compare(x.Offset, y.Offset))
	})
	gone = slices.Compact(gone)
	for _, l := range gone {
		why := "unexplained"
		if a.LostWhy != nil {
			why = a.LostWhy(l.Topic, l.Partition, l.Offset)
		}
		if n := len(lost); n > 0 {
			p := &lost[n-1]
			if p.Topic == l.Topic && p.Partition == l.Partition && p.LastOffset+1 == l.Offset && p.Why == why {
				p.LastOffset = l.Offset
				continue
			}
		}
		lost = append(lost, TruthLost{Topic: l.Topic, Partition: l.Partition, FirstOffset: l.Offset, LastOffset: l.Offset, Why: why})
	}
	return records, resends, lost, nil
}
