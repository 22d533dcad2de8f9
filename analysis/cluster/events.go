package cluster

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/topics"
)

// Cluster event kinds (cluster_events.parquet).
const (
	EventLeaderChange       = "leader-change"
	EventISRShrink          = "isr-shrink"
	EventISRExpand          = "isr-expand"
	EventUncleanElection    = "unclean-election"
	EventBrokerRegistered   = "broker-registered"
	EventBrokerUnregistered = "broker-unregistered"
	EventBrokerFenced       = "broker-fenced"
	EventBrokerUnfenced     = "broker-unfenced"
	EventTopicCreated       = "topic-created"
	EventTopicDeleted       = "topic-deleted"
	EventConfigChange       = "config-change"
	EventControlledShutdown = "broker-controlled-shutdown"
)

// SourceMetadataLog is the source of events read from __cluster_metadata.
const SourceMetadataLog = "metadata-log"

// ClusterEvents replays the KRaft metadata log of each input into the
// cluster's history: leader and ISR changes, unclean elections, broker
// registration and fencing, topic and config changes. Records of a KRaft
// snapshot (.checkpoint) set the state the log's changes are judged
// against but are no events themselves. Every broker holds a copy of the
// metadata log: an event read from several copies (same offset, time,
// kind and details) is kept once.
type ClusterEvents struct {
	copies map[int32]*metaState
	rows   []analysis.ClusterEventRow
}

// metaState is one copy's replayed state.
type metaState struct {
	topics map[topics.UUID]string
	parts  map[partID]*partState
}

type partID struct {
	topic topics.UUID
	part  int32
}

type partState struct {
	leader int32
	isr    []int32
	// elr holds the eligible leader replicas and the last known ones
	// (KIP-966): replicas that left an ISR of one but hold every
	// committed record, which a clean election may choose.
	elr []int32
}

func elrOf(elr, lastKnown *[]int32) []int32 {
	var out []int32
	if elr != nil {
		out = append(out, *elr...)
	}
	if lastKnown != nil {
		out = append(out, *lastKnown...)
	}
	return out
}

// NewClusterEvents returns an empty replay.
func NewClusterEvents() *ClusterEvents { return &ClusterEvents{copies: map[int32]*metaState{}} }

// Add takes one decoded record of __cluster_metadata read from segment
// (a .log or a .checkpoint) of input, at offset, with its timestamp.
func (e *ClusterEvents) Add(input int32, segment string, offset int64, ts *int64, m *topics.MetadataRecord) {
	if m == nil || m.Data == nil {
		return
	}
	st := e.copies[input]
	if st == nil {
		st = &metaState{topics: map[topics.UUID]string{}, parts: map[partID]*partState{}}
		e.copies[input] = st
	}
	emit := !strings.HasSuffix(path.Base(segment), ".checkpoint")
	add := func(kind string, broker int32, topic string, part int32, format string, args ...any) {
		if !emit {
			return
		}
		row := analysis.ClusterEventRow{Input: input, Time: ts, Kind: kind, Details: fmt.Sprintf(format, args...),
			Source: SourceMetadataLog, File: segment, Offset: &offset}
		if broker >= 0 {
			row.Broker = &broker
		}
		if topic != "" {
			t, p := topic, part
			row.Topic, row.Partition = &t, &p
		}
		e.rows = append(e.rows, row)
	}
	switch r := m.Data.(type) {
	case *topics.TopicRecord:
		st.topics[r.TopicID] = r.Name
		add(EventTopicCreated, -1, r.Name, -1, "topic %s created (id %s)", r.Name, r.TopicID)
	case *topics.RemoveTopicRecord:
		name := st.topics[r.TopicID]
		add(EventTopicDeleted, -1, name, -1, "topic %s deleted (id %s)", orID(name, r.TopicID), r.TopicID)
	case *topics.PartitionRecord:
		st.parts[partID{r.TopicID, r.PartitionID}] = &partState{leader: r.Leader, isr: slices.Clone(r.Isr),
			elr: elrOf(r.EligibleLeaderReplicas, r.LastKnownElr)}
	case *topics.PartitionChangeRecord:
		st.partitionChange(r, add)
	case *topics.RegisterBrokerRecord:
		fenced := ""
		if r.Fenced {
			fenced = ", fenced"
		}
		add(EventBrokerRegistered, r.BrokerID, "", -1, "broker %d registered (broker epoch %d%s)", r.BrokerID, r.BrokerEpoch, fenced)
	case *topics.UnregisterBrokerRecord:
		add(EventBrokerUnregistered, r.BrokerID, "", -1, "broker %d unregistered (broker epoch %d)", r.BrokerID, r.BrokerEpoch)
	case *topics.FenceBrokerRecord:
		add(EventBrokerFenced, r.ID, "", -1, "broker %d fenced (broker epoch %d)", r.ID, r.Epoch)
	case *topics.UnfenceBrokerRecord:
		add(EventBrokerUnfenced, r.ID, "", -1, "broker %d unfenced (broker epoch %d)", r.ID, r.Epoch)
	case *topics.BrokerRegistrationChangeRecord:
		switch r.Fenced {
		case 1:
			add(EventBrokerFenced, r.BrokerID, "", -1, "broker %d fenced (broker epoch %d)", r.BrokerID, r.BrokerEpoch)
		case -1:
			add(EventBrokerUnfenced, r.BrokerID, "", -1, "broker %d unfenced (broker epoch %d)", r.BrokerID, r.BrokerEpoch)
		}
		if r.InControlledShutdown == 1 {
			add(EventControlledShutdown, r.BrokerID, "", -1, "broker %d in controlled shutdown (broker epoch %d)", r.BrokerID, r.BrokerEpoch)
		}
	case *topics.ConfigRecord:
		v := "deleted"
		if r.Value != nil {
			v = fmt.Sprintf("= %q", *r.Value)
		}
		topic := ""
		if r.ResourceType == 2 { // TOPIC
			topic = r.ResourceName
		}
		what := fmt.Sprintf("%s %q", resourceName(r.ResourceType), r.ResourceName)
		if r.ResourceName == "" {
			what = "default " + resourceName(r.ResourceType) // the cluster-wide default
		}
		add(EventConfigChange, -1, topic, -1, "%s: %s %s", what, r.Name, v)
	}
}

func orID(name string, id topics.UUID) string {
	if name == "" {
		return id.String()
	}
	return name
}

func resourceName(t int8) string {
	switch t {
	case 2:
		return "topic"
	case 4:
		return "broker"
	case 8:
		return "broker-logger"
	case 16:
		return "client-metrics"
	case 32:
		return "group"
	}
	return fmt.Sprintf("resource type %d", t)
}

// partitionChange turns one PartitionChangeRecord into events: an unclean
// election (a leader recovery state of RECOVERING, or a leader outside the
// non-empty ISR and the eligible leader replicas it replaces), a leader
// change, an ISR that shrank or grew.
func (st *metaState) partitionChange(r *topics.PartitionChangeRecord, add func(string, int32, string, int32, string, ...any)) {
	k := partID{r.TopicID, r.PartitionID}
	p := st.parts[k]
	known := p != nil
	if !known {
		p = &partState{leader: -1}
		st.parts[k] = p
	}
	topic := orID(st.topics[r.TopicID], r.TopicID)
	name := fmt.Sprintf("%s-%d", topic, r.PartitionID)
	prevELR := p.elr // the election is judged by the state it replaces
	if r.EligibleLeaderReplicas != nil || r.LastKnownElr != nil {
		p.elr = elrOf(r.EligibleLeaderReplicas, r.LastKnownElr)
	}
	if r.Leader != nil && (*r.Leader != p.leader || !known) {
		nl := *r.Leader
		recovering := r.LeaderRecoveryState != nil && *r.LeaderRecoveryState == topics.LeaderRecovering
		// An empty ISR says nothing (KIP-966 empties it when its last
		// member is fenced, and elects from the ELR); Kafka marks every
		// unclean election with RECOVERING.
		outside := known && nl >= 0 && len(p.isr) > 0 && !slices.Contains(p.isr, nl) && !slices.Contains(prevELR, nl)
		switch {
		case recovering || outside:
			add(EventUncleanElection, nl, topic, r.PartitionID, "%s: broker %d elected leader from outside the ISR %v (previous leader %s)%s",
				name, nl, p.isr, leaderName(p.leader, known), recoveryNote(recovering))
		case nl >= 0 && !slices.Contains(p.isr, nl) && slices.Contains(prevELR, nl):
			add(EventLeaderChange, nl, topic, r.PartitionID, "%s: leader %s -> %s%s", name, leaderName(p.leader, known), leaderName(nl, true), elrNote)
		default:
			add(EventLeaderChange, nl, topic, r.PartitionID, "%s: leader %s -> %s", name, leaderName(p.leader, known), leaderName(nl, true))
		}
		p.leader = nl
	}
	if r.Isr != nil {
		isr := *r.Isr
		if known {
			gone, came := diff(p.isr, isr), diff(isr, p.isr)
			if len(gone) > 0 {
				add(EventISRShrink, p.leader, topic, r.PartitionID, "%s: ISR %v -> %v (%v left)", name, p.isr, isr, gone)
			}
			if len(came) > 0 {
				add(EventISRExpand, p.leader, topic, r.PartitionID, "%s: ISR %v -> %v (%v joined)", name, p.isr, isr, came)
			}
		}
		p.isr = slices.Clone(isr)
	}
}

// elrNote ends the details of a leader elected from the eligible leader
// replicas (KIP-966): a clean election, but one an operator checks, since
// the ISR it replaces was empty.
const elrNote = " (elected from the eligible leader replicas)"

// BearsOnLoss reports whether e, an event of the metadata log, may
// explain lost or diverged records: an unclean election, or a leader
// elected from the eligible leader replicas. A partition left without a
// leader does not: every shutdown of its last replica's broker does that.
func BearsOnLoss(e *analysis.ClusterEventRow) bool {
	switch e.Kind {
	case EventUncleanElection:
		return true
	case EventLeaderChange:
		return e.Source == SourceMetadataLog && strings.HasSuffix(e.Details, elrNote)
	}
	return false
}

func recoveryNote(recovering bool) string {
	if recovering {
		return "; leader recovery state RECOVERING"
	}
	return ""
}

func leaderName(l int32, known bool) string {
	switch {
	case !known:
		return "unknown"
	case l < 0:
		return "none"
	}
	return fmt.Sprint(l)
}

// diff is what a holds and b does not.
func diff(a, b []int32) []int32 {
	var out []int32
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// Rows returns the events in time order (events without a time last),
// each kept once across the copies of the metadata log.
func (e *ClusterEvents) Rows() []analysis.ClusterEventRow {
	type key struct {
		off, ts      int64
		kind, detail string
	}
	seen := map[key]bool{}
	out := make([]analysis.ClusterEventRow, 0, len(e.rows))
	for _, r := range e.rows {
		k := key{off: *r.Offset, ts: -1, kind: r.Kind, detail: r.Details}
		if r.Time != nil {
			k.ts = *r.Time
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	SortEvents(out)
	return out
}

// SortEvents orders events by time (none last), then input, file and
// offset.
func SortEvents(rs []analysis.ClusterEventRow) {
	slices.SortStableFunc(rs, func(a, b analysis.ClusterEventRow) int {
		ta, tb := int64(1<<62), int64(1<<62)
		if a.Time != nil {
			ta = *a.Time
		}
		if b.Time != nil {
			tb = *b.Time
		}
		return cmp.Or(cmp.Compare(ta, tb), cmp.Compare(a.Input, b.Input), strings.Compare(a.File, b.File), cmp.Compare(deref(a.Offset), deref(b.Offset)))
	})
}

func deref(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}
