package analysis

// ClusterVerdict is the one answer for a topic-partition across every copy
// the inputs hold of it (several brokers' log dirs of one cluster): lost
// cluster-wide, with the offset ranges no copy holds and why, or intact,
// with the copies that are behind, diverged or damaged and the copy that
// holds the full range. verify --json writes it as a "cluster_verdict"
// line.
type ClusterVerdict struct {
	// Cluster is the log dirs' cluster.id, "" when they name none.
	Cluster   string `json:"cluster"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// Copies are the copies judged, in input order.
	Copies []ClusterCopy `json:"copies"`
	// Verdict is intact, lost (some offsets are in no copy) or unread
	// (every offset missing from all copies is one a cut input did not
	// deliver).
	Verdict CopyState `json:"verdict"`
	// FirstOffset and LogEndOffset span the offsets some copy holds or
	// should hold (-1: none).
	FirstOffset  int64 `json:"first_offset"`
	LogEndOffset int64 `json:"log_end_offset"`
	// LostRanges are the offsets no copy holds, each range of one set of
	// causes.
	LostRanges []ClusterLoss `json:"lost_ranges"`
	// Lost counts their offsets; Unbounded says some range's end is not
	// known.
	Lost      int64 `json:"lost_offsets"`
	Unbounded bool  `json:"lost_unbounded"`
	// BestCopy is the copy that holds the most of the partition: every
	// offset some copy holds when Full.
	BestCopy *ClusterCopy `json:"best_copy"`
	Full     bool         `json:"best_copy_full"`
	// Events are the cluster's own records that bear on the verdict: an
	// unclean election of the partition, a leader elected in RECOVERING
	// state or from the eligible leader replicas (KRaft metadata log,
	// broker logs).
	Events []ClusterEventRow `json:"events"`
	// Text is the verdict in one line.
	Text string `json:"text"`
}

// ClusterCopy is one copy of a partition as a cluster verdict sees it.
type ClusterCopy struct {
	Input  int32  `json:"input"`
	Source string `json:"source"`
	Dir    string `json:"dir"`
	// Broker is node.id (broker.id) from the log dir's meta.properties.
	Broker *int32 `json:"broker"`
	// State is the replica comparison's verdict when there is one (the
	// copy against the reference), else the copy's own (intact, lost,
	// unread); a copy lost on its own evidence stays lost.
	State        CopyState `json:"state"`
	FirstOffset  int64     `json:"first_offset"`
	LogEndOffset int64     `json:"log_end_offset"`
	// Held counts the offsets the copy holds intact; Lacks are the
	// offsets another copy holds that this one does not.
	Held  int64         `json:"held_offsets"`
	Lacks []OffsetRange `json:"lacks"`
	// Crashed: the copy's log dir was not shut down cleanly (a broker
	// that crashed or still ran when it was copied).
	Crashed bool `json:"crashed"`
}

// ClusterLoss is a range of offsets no copy holds, with the causes the
// copies' loss ledgers give for it.
type ClusterLoss struct {
	FirstOffset int64 `json:"first_offset"`
	// LastOffset is null when the range's end is unknown.
	LastOffset *int64   `json:"last_offset"`
	Causes     []string `json:"causes"`
	// Unread: every cause is unread (a cut input).
	Unread bool `json:"unread"`
}

// NeedsAction: some offset is lost cluster-wide, or some copy is not
// intact, the reference or in sync with it. The outputs list these and
// count the rest.
func (cv *ClusterVerdict) NeedsAction() bool {
	if cv.Verdict != CopyIntact {
		return true
	}
	for _, c := range cv.Copies {
		switch c.State {
		case CopyIntact, CopyReference, CopyInSync:
		default:
			return true
		}
	}
	return false
}
