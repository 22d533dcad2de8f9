package html

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

// Limits on the page; what is beyond them is counted in the page and is
// complete in the Parquet tables of scan --out.
const (
	// CollapseLanes is the number of sessions of a partition beyond which
	// its lanes start collapsed: sessions that do not overlap in offsets
	// share a row, and a button expands them to one row each.
	CollapseLanes = 12
	maxRuns       = 5000
	maxAnomalies  = 2000
	maxSegments   = 500
)

// Input is one PATH argument of the run.
type Input struct {
	Index int32  `json:"index"`
	Path  string `json:"path"`
	Kind  string `json:"kind"`
	// SHA256 of the input file itself, for file and archive inputs, when
	// the caller computed it; Build fills in the digest of the file list
	// otherwise.
	SHA256 string `json:"sha256"`
	// SHA256Of says what SHA256 covers: "file", or "file-list" (the
	// SHA-256 of the lines "<sha256>  <path>\n" of every regular file of
	// the input, sorted by path, as `sha256sum` prints them).
	SHA256Of string `json:"sha256_of"`
	Files    int    `json:"files"`
	Bytes    int64  `json:"bytes"`
}

// Run is what one analysis run produced: everything the page shows.
type Run struct {
	Version     string
	Generated   time.Time
	CommandLine string
	Inputs      []Input
	// Summary is what the run counted (its verdicts, partitions, finding
	// counts, open transactions); nil for an empty run.
	Summary *pipeline.Summary
	// Files are the file rows; Anomalies every finding of the run.
	Files     []analysis.FileRow
	Anomalies []analysis.AnomalyRow
	// Sessions are the producer sessions.
	Sessions []analysis.ProducerRow
	// Gaps are the loss ledger (Summary.Verdicts its one-line answers).
	Gaps     []analysis.GapRow
	DupStats dups.Stats
	// ClusterEvents (cluster_events.parquet) and Replicas (replicas.
	// parquet) go on the cluster timeline.
	ClusterEvents []analysis.ClusterEventRow
	Replicas      []analysis.ReplicaRow
	// Collected holds what the Collector gathered from the stream.
	Collected *Collector
	// ConsumedBy says which consumer groups committed past offsets first..
	// last of a partition copy ("" none; nil when the inputs hold no
	// commits): each run says who committed past its copies.
	ConsumedBy func(input int32, dir, topic string, partition int32, first, last int64) string
}

// NewRun is the Run of a pipeline result with its summary; the caller
// adds the page's header, the inputs and what the Collector gathered.
func NewRun(res *pipeline.Result, sum *pipeline.Summary) *Run {
	return &Run{Summary: sum, Files: res.Scan.Files, Anomalies: res.Scan.Anomalies, Sessions: res.Sessions, Gaps: res.Check.Gaps,
		ClusterEvents: res.ClusterEvents(), Replicas: res.Replicas.Rows, ConsumedBy: res.ConsumedText}
}

// Model is the page's data section (<script id="ksleuth-data">), from
// which the page is drawn. Field names follow the Parquet columns where
// a table has the same thing.
type Model struct {
	Schema      int    `json:"schema"`
	Version     string `json:"ksleuth_version"`
	Generated   string `json:"generated"`
	CommandLine string `json:"command_line"`

	Inputs  []Input `json:"inputs"`
	Brokers []int32 `json:"brokers"`
	// LogDirs counts the log dirs the partitions lie in: more than the
	// brokers when copies give the same broker id.
	LogDirs int `json:"log_dirs"`
	// The copies not shut down cleanly, in every command's words.
	analysis.CrashedCopies
	Topics         int    `json:"topics"`
	Partitions     int    `json:"partitions"`
	Files          int    `json:"files"`
	Bytes          int64  `json:"bytes"`
	Batches        int64  `json:"batches"`
	Records        int64  `json:"records"`
	FirstTimestamp *int64 `json:"first_timestamp"`
	LastTimestamp  *int64 `json:"last_timestamp"`

	// Checked says what the checks read, so the page never claims one
	// that did not run.
	Checked []analysis.CheckedKind `json:"checked"`
	// Clusters are the verdicts across brokers that need action (lost
	// somewhere, or a copy behind, diverged or damaged), ClustersIntact
	// counts the others: the page leads with them when several log dirs
	// hold copies of a partition.
	Clusters       []analysis.ClusterVerdict `json:"cluster_verdicts"`
	ClustersIntact int                       `json:"cluster_verdicts_intact"`
	// Verdicts are the copies that are not intact, one by one; the
	// intact ones are counted by topic (IntactByTopic), so that the page
	// of thousands of partitions stays small.
	Verdicts         []analysis.Verdict      `json:"partition_verdicts"`
	VerdictsOmitted  int                     `json:"partition_verdicts_omitted"`
	Intact           int                     `json:"partitions_intact"`
	IntactByTopic    []TopicCopies           `json:"intact_by_topic"`
	Lost             int                     `json:"partitions_with_loss"`
	Unread           int                     `json:"partitions_unread"`
	Gaps             []analysis.GapRow       `json:"gaps"`
	GapsOmitted      int                     `json:"gaps_omitted"`
	Findings         []analysis.FindingCount `json:"findings"`
	Anomalies        []analysis.AnomalyRow   `json:"anomalies"`
	AnomaliesOmitted int                     `json:"anomalies_omitted"`
	Segments         []SegmentDamage         `json:"damaged_segments"`
	SegmentsOmitted  int                     `json:"damaged_segments_omitted"`

	Sessions int `json:"producer_sessions"`
	// OpenTransactions hold back the last stable offset of their
	// partitions; Hanging counts those no coordinator is known to end.
	OpenTransactions []analysis.OpenTxn `json:"open_transactions"`
	Hanging          int                `json:"hanging_transactions"`
	Timelines        []Timeline         `json:"timelines"`
	// TimelinesOmitted counts the partitions whose producer timeline is
	// not drawn past maxTimelines (producers.parquet has their sessions).
	TimelinesOmitted int   `json:"timelines_omitted"`
	DuplicateGroups  int64 `json:"duplicate_groups"`
	Duplicates       int64 `json:"duplicates"`
	// Strong and Possible count the restart-resend and txn-retry copies
	// graded strong and weak.
	Strong      int64        `json:"strong_resends"`
	Possible    int64        `json:"possible_resends"`
	Runs        []RunInfo    `json:"runs"`
	RunsTotal   int          `json:"runs_total"`
	TopicTotals []TopicTotal `json:"topic_totals"`
	// Cluster is the cluster-wide time axis (null when nothing has a
	// time).
	Cluster *ClusterTimeline `json:"cluster_timeline"`
	// Omitted counts aborted spans, abort markers and damaged batches the
	// collector left out past its limits.
	Omitted map[string]int `json:"omitted"`
}

// GapSpan is one absent offset range on a partition's timeline.
type GapSpan struct {
	First    int64  `json:"first_offset"`
	Last     int64  `json:"last_offset"` // first when the end is unknown
	Cause    string `json:"cause"`
	Severity string `json:"severity"`
}

// Caps on the rows of the page's loss section and on the producer
// timelines drawn; the tables hold them all.
const (
	maxVerdicts  = 2000
	maxGaps      = 2000
	maxTimelines = 100
)

// TopicCopies counts the intact partition copies of one topic.
type TopicCopies struct {
	Topic  string `json:"topic"`
	Copies int    `json:"copies"`
}

// SegmentDamage is one file with findings that have a byte position,
// drawn as a bar of its size.
type SegmentDamage struct {
	Input  int32       `json:"input"`
	File   string      `json:"file"`
	Size   int64       `json:"size"`
	Ranges []DamageBar `json:"ranges"`
}

// DamageBar is one damaged (or noted) byte range of a file.
type DamageBar struct {
	Start    int64  `json:"start"`
	End      int64  `json:"end"`
	Kind     string `json:"kind"`
	Severity string `json:"severity"`
}

// Timeline is one partition dir: its producer sessions (the lanes) and
// the duplicate runs written into it (the links).
type Timeline struct {
	ID             string        `json:"id"`
	Input          int32         `json:"input"`
	Topic          string        `json:"topic"`
	Partition      int32         `json:"partition"`
	Dir            string        `json:"dir"`
	FirstOffset    *int64        `json:"first_offset"`
	LastOffset     *int64        `json:"last_offset"`
	FirstTimestamp *int64        `json:"first_timestamp"`
	LastTimestamp  *int64        `json:"last_timestamp"`
	Sessions       []SessionLane `json:"sessions"`
	// Runs are indexes into Model.Runs of the runs written here.
	Runs []int `json:"runs"`
	// Gaps are the offset ranges of the partition that cannot be read,
	// drawn on their own lane.
	Gaps []GapSpan `json:"gaps"`
	// Collapsed: more than CollapseLanes sessions, drawn packed.
	Collapsed bool `json:"collapsed"`
}

// SessionLane is a producer session (producers.parquet) with its
// aborted transactions and where it is drawn.
type SessionLane struct {
	analysis.ProducerRow
	AbortedSpans []Span   `json:"aborted_spans"`
	AbortMarkers []Marker `json:"abort_markers"`
	// Row is the session's row when the timeline is collapsed.
	Row int `json:"row"`
}

// RunInfo is a run of later occurrences (dups.Run) with what the page
// shows of it.
type RunInfo struct {
	dups.Run
	ID   int    `json:"id"`
	Text string `json:"text"`
	// Explanation is the explanation column of duplicates.parquet for the
	// run's first record.
	Explanation string `json:"explanation"`
	// ConsumedBy says which consumer groups committed past the run's
	// copies ("consumed by group billing (committed 1234 at ...)"), empty
	// when none did.
	ConsumedBy string `json:"consumed_by"`
	// Timestamps of the run's first and last record and of the copies
	// they repeat (null when unknown).
	FirstTimestamp    *int64 `json:"first_timestamp"`
	LastTimestamp     *int64 `json:"last_timestamp"`
	RefFirstTimestamp *int64 `json:"ref_first_timestamp"`
	RefLastTimestamp  *int64 `json:"ref_last_timestamp"`
	// Timeline and Lane place the link: the resent side in Timeline (lane
	// -1: a writer without a session, PID -1), the original side in
	// RefTimeline/RefLane (RefTimeline "" when the original is not in a
	// drawn partition).
	Timeline    string `json:"timeline"`
	Lane        int    `json:"lane"`
	RefTimeline string `json:"ref_timeline"`
	RefLane     int    `json:"ref_lane"`
}

// TopicTotal sums one topic.
type TopicTotal struct {
	Topic      string           `json:"topic"`
	Partitions int              `json:"partitions"`
	Records    int64            `json:"records"`
	Sessions   int              `json:"producer_sessions"`
	Duplicates int64            `json:"duplicates"`
	ByClass    map[string]int64 `json:"by_class"`
	Strong     int64            `json:"strong_resends"`
	Possible   int64            `json:"possible_resends"`
	Findings   int64            `json:"findings"`
}

// gradeKey prefixes the evidence grades counted beside the classes of a
// topic's copies.
const gradeKey = "evidence:"

// Build turns a run into the page model.
func Build(r *Run) *Model {
	res := r.Summary
	if res == nil {
		res = &pipeline.Summary{}
	}
	c := r.Collected
	if c == nil {
		c = NewCollector("")
	}
	m := &Model{Schema: 1, Version: r.Version, Generated: r.Generated.UTC().Format(time.RFC3339), CommandLine: r.CommandLine,
		Files: len(r.Files), Bytes: res.Bytes, Batches: res.Batches, Records: res.Records,
		Sessions: len(r.Sessions), DuplicateGroups: r.DupStats.Groups, Duplicates: r.DupStats.Duplicates,
		Omitted: map[string]int{"aborted_spans": c.omittedSpans, "abort_markers": c.omittedMarkers, "damaged_batches": c.omittedDamaged}}

	m.OpenTransactions = res.OpenTxns
	if m.OpenTransactions == nil {
		m.OpenTransactions = []analysis.OpenTxn{}
	}
	for _, h := range res.OpenTxns {
		if h.CoordinatorState != analysis.CoordinatorOngoing {
			m.Hanging++
		}
	}
	m.Inputs = buildInputs(r.Inputs, r.Files)
	brokers := map[int32]bool{}
	topics := map[string]*TopicTotal{}
	topic := func(name string) *TopicTotal {
		t := topics[name]
		if t == nil {
			t = &TopicTotal{Topic: name, ByClass: map[string]int64{}}
			for _, cl := range pipeline.DupClasses {
				t.ByClass[cl] = 0
			}
			topics[name] = t
		}
		return t
	}
	for _, p := range res.Partitions {
		if p.BrokerID != nil {
			brokers[*p.BrokerID] = true
		}
		t := topic(p.Topic)
		t.Partitions++
		t.Records += p.Records
		t.Findings += p.Findings
		m.FirstTimestamp = minPtr(m.FirstTimestamp, p.FirstTime)
		m.LastTimestamp = maxPtr(m.LastTimestamp, p.LastTime)
	}
	for _, f := range r.Files {
		if f.BrokerID != nil {
			brokers[*f.BrokerID] = true
		}
	}
	for b := range brokers {
		m.Brokers = append(m.Brokers, b)
	}
	slices.Sort(m.Brokers)
	m.Topics, m.Partitions = len(topics), len(res.Partitions)
	m.LogDirs = countLogDirs(res.Partitions)
	m.CrashedCopies = res.Crashed

	m.Findings = findingCounts(res.Findings, nil)
	m.Checked = res.Checked
	for _, v := range res.Verdicts {
		switch {
		case v.Unread:
			m.Unread++
		case !v.Intact:
			m.Lost++
		}
	}
	m.buildVerdicts(res)
	if len(m.Verdicts) > maxVerdicts {
		m.VerdictsOmitted, m.Verdicts = len(m.Verdicts)-maxVerdicts, m.Verdicts[:maxVerdicts]
	}
	m.Gaps = slices.Clone(r.Gaps)
	if len(m.Gaps) > maxGaps {
		m.GapsOmitted, m.Gaps = len(m.Gaps)-maxGaps, m.Gaps[:maxGaps]
	}
	anomalies := slices.Clone(r.Anomalies)
	slices.SortStableFunc(anomalies, func(a, b analysis.AnomalyRow) int {
		return cmp.Or(cmp.Compare(finding.Rank(a.Severity), finding.Rank(b.Severity)), cmp.Compare(a.Input, b.Input),
			cmp.Compare(a.File, b.File), cmp.Compare(derefOr(a.Position, -1), derefOr(b.Position, -1)))
	})
	if len(anomalies) > maxAnomalies {
		m.AnomaliesOmitted = len(anomalies) - maxAnomalies
		anomalies = anomalies[:maxAnomalies]
	}
	m.Anomalies = anomalies
	m.Segments, m.SegmentsOmitted = buildSegments(r, c)

	m.Timelines = buildTimelines(res.Partitions, r.Sessions, c)
	addGaps(m.Timelines, r.Gaps)
	for _, tl := range m.Timelines {
		topic(tl.Topic).Sessions += len(tl.Sessions)
	}
	for name, byClass := range c.dupTopics {
		t := topic(name)
		for class, n := range byClass {
			switch class {
			case gradeKey + dups.EvidenceStrong:
				t.Strong += n
				m.Strong += n
			case gradeKey + dups.EvidenceWeak:
				t.Possible += n
				m.Possible += n
			default:
				t.Duplicates += n
				t.ByClass[class] += n
			}
		}
	}
	m.Runs, m.RunsTotal = buildRuns(c, m.Timelines, r.ConsumedBy)
	m.Cluster = buildCluster(r, m.Runs)
	for i := range m.Runs {
		for j := range m.Timelines {
			if m.Timelines[j].ID == m.Runs[i].Timeline {
				m.Timelines[j].Runs = append(m.Timelines[j].Runs, i)
			}
		}
	}
	m.Timelines, m.TimelinesOmitted = drawnTimelines(m.Timelines, m.Runs)
	for _, t := range topics {
		m.TopicTotals = append(m.TopicTotals, *t)
	}
	slices.SortFunc(m.TopicTotals, func(a, b TopicTotal) int { return cmp.Compare(a.Topic, b.Topic) })
	nonNil(&m.Brokers)
	nonNil(&m.Findings)
	nonNil(&m.Verdicts)
	nonNil(&m.IntactByTopic)
	nonNil(&m.Clusters)
	nonNil(&m.Gaps)
	nonNil(&m.Anomalies)
	nonNil(&m.Segments)
	nonNil(&m.Timelines)
	nonNil(&m.Runs)
	nonNil(&m.TopicTotals)
	return m
}

func buildInputs(in []Input, files []analysis.FileRow) []Input {
	out := slices.Clone(in)
	type line struct{ path, sum string }
	lists := make(map[int32][]line)
	for _, f := range files {
		for i := range out {
			if out[i].Index == f.Input {
				out[i].Files++
				out[i].Bytes += f.Size
			}
		}
		if f.SHA256 != "" {
			lists[f.Input] = append(lists[f.Input], line{f.Path, f.SHA256})
		}
	}
	for i := range out {
		if out[i].SHA256 != "" {
			out[i].SHA256Of = "file"
			continue
		}
		l := lists[out[i].Index]
		slices.SortFunc(l, func(a, b line) int { return cmp.Compare(a.path, b.path) })
		h := sha256.New()
		for _, e := range l {
			h.Write([]byte(e.sum + "  " + e.path + "\n"))
		}
		out[i].SHA256, out[i].SHA256Of = hex.EncodeToString(h.Sum(nil)), "file-list"
	}
	return out
}

func findingCounts(fc []analysis.FindingCount, extra []analysis.AnomalyRow) []analysis.FindingCount {
	out := slices.Clone(fc)
	for _, a := range extra {
		i := slices.IndexFunc(out, func(f analysis.FindingCount) bool { return f.Kind == a.Kind && f.Severity == a.Severity })
		if i < 0 {
			out = append(out, analysis.FindingCount{Kind: a.Kind, Severity: a.Severity})
			i = len(out) - 1
		}
		out[i].Count++
	}
	slices.SortFunc(out, func(a, b analysis.FindingCount) int {
		return cmp.Or(cmp.Compare(finding.Rank(a.Severity), finding.Rank(b.Severity)), cmp.Compare(b.Count, a.Count), cmp.Compare(a.Kind, b.Kind))
	})
	return out
}

// tailKinds are findings that make the rest of the file unreadable.
var tailKinds = map[finding.Kind]bool{finding.KindTruncated: true, finding.KindZeroTail: true}

// skipped finds how far the segment reader skipped to resume ("… (284
// bytes skipped to the next valid batch at byte 974)").
var skipped = regexp.MustCompile(`\((\d+) bytes skipped`)

func buildSegments(res *Run, c *Collector) ([]SegmentDamage, int) {
	sizes := map[segKey]int64{}
	for _, f := range res.Files {
		sizes[segKey{f.Input, f.Path}] = f.Size
	}
	byFile := map[segKey]*SegmentDamage{}
	var order []segKey
	for _, a := range res.Anomalies {
		if a.Position == nil {
			continue
		}
		k := segKey{a.Input, a.File}
		size, ok := sizes[k]
		if !ok {
			continue
		}
		s := byFile[k]
		if s == nil {
			s = &SegmentDamage{Input: a.Input, File: a.File, Size: size}
			byFile[k] = s
			order = append(order, k)
		}
		pos := *a.Position
		end := pos + 1
		for _, r := range c.damaged[k] {
			if r.start == pos {
				end = r.end
			}
		}
		if m := skipped.FindStringSubmatch(a.Message); m != nil {
			if n, err := strconv.ParseInt(m[1], 10, 64); err == nil {
				end = max(end, pos+n)
			}
		}
		if tailKinds[a.Kind] {
			end = max(end, size)
		}
		s.Ranges = append(s.Ranges, DamageBar{Start: pos, End: min(max(end, pos+1), max(size, pos+1)), Kind: string(a.Kind), Severity: string(a.Severity)})
	}
	slices.SortFunc(order, func(a, b segKey) int { return cmp.Or(cmp.Compare(a.input, b.input), cmp.Compare(a.segment, b.segment)) })
	var out []SegmentDamage
	for _, k := range order {
		out = append(out, *byFile[k])
	}
	if len(out) > maxSegments {
		return out[:maxSegments], len(out) - maxSegments
	}
	return out, 0
}

func buildTimelines(parts []analysis.PartitionSummary, sessions []analysis.ProducerRow, c *Collector) []Timeline {
	type dirKey struct {
		input int32
		dir   string
	}
	var out []Timeline
	index := map[dirKey]int{}
	for _, s := range sessions {
		k := dirKey{s.Input, s.Dir}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, Timeline{Input: s.Input, Topic: s.Topic, Partition: s.Partition, Dir: s.Dir})
		}
		sk := SessionKey{s.Input, s.Dir, s.ProducerID, s.ProducerEpoch}
		lane := SessionLane{ProducerRow: s, AbortedSpans: c.spans[sk], AbortMarkers: c.markers[sk]}
		nonNil(&lane.AbortedSpans)
		nonNil(&lane.AbortMarkers)
		out[i].Sessions = append(out[i].Sessions, lane)
	}
	for _, p := range parts {
		if i, ok := index[dirKey{p.Input, p.Dir}]; ok {
			out[i].FirstOffset, out[i].LastOffset = copyPtr(p.First), copyPtr(p.Last)
			out[i].FirstTimestamp, out[i].LastTimestamp = copyPtr(p.FirstTime), copyPtr(p.LastTime)
		}
	}
	// Partitions with duplicates but no session (written only by PID -1)
	// get a timeline too, so that their links have somewhere to go.
	for r := range c.negParts {
		found := false
		for _, tl := range out {
			if tl.Input == r.input && tl.Topic == r.topic && tl.Partition == r.partition {
				found = true
				break
			}
		}
		if found {
			continue
		}
		for _, p := range parts {
			if p.Input == r.input && p.Topic == r.topic && p.Partition == r.partition && p.DirState == "" {
				index[dirKey{p.Input, p.Dir}] = len(out)
				out = append(out, Timeline{Input: p.Input, Topic: p.Topic, Partition: p.Partition, Dir: p.Dir,
					FirstOffset: copyPtr(p.First), LastOffset: copyPtr(p.Last), FirstTimestamp: copyPtr(p.FirstTime), LastTimestamp: copyPtr(p.LastTime)})
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b Timeline) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.Input, b.Input), cmp.Compare(a.Dir, b.Dir))
	})
	for i := range out {
		tl := &out[i]
		tl.ID = "tl" + strconv.Itoa(i)
		tl.Collapsed = len(tl.Sessions) > CollapseLanes
		packRows(tl.Sessions)
		nonNil(&tl.Sessions)
		nonNil(&tl.Runs)
	}
	return out
}

// packRows gives each session the first row whose sessions all end
// before it starts (in offsets), in order of first offset.
func packRows(lanes []SessionLane) {
	order := make([]int, len(lanes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(lanes[a].FirstOffset, lanes[b].FirstOffset) })
	var ends []int64
	for _, i := range order {
		row := -1
		for r, e := range ends {
			if e < lanes[i].FirstOffset {
				row = r
				break
			}
		}
		if row < 0 {
			row = len(ends)
			ends = append(ends, 0)
		}
		ends[row] = lanes[i].LastOffset
		lanes[i].Row = row
	}
}

func buildRuns(c *Collector, tls []Timeline, consumedBy func(int32, string, string, int32, int64, int64) string) ([]RunInfo, int) {
	out := make([]RunInfo, len(c.topRuns))
	for i, d := range c.topRuns {
		u := d.Run
		ri := RunInfo{Run: u, ID: i, Text: u.String(), Explanation: d.Explanation, Lane: -1, RefLane: -1,
			FirstTimestamp: u.Times.First, LastTimestamp: u.Times.Last, RefFirstTimestamp: u.Times.RefFirst, RefLastTimestamp: u.Times.RefLast}
		if consumedBy != nil {
			ri.ConsumedBy = consumedBy(u.Input, u.Dir, u.Topic, u.Partition, u.First, u.Last)
		}
		ri.Timeline, ri.Lane = findLane(tls, u.Input, u.Topic, u.Partition, u.ProducerID, u.Epoch, u.First)
		// The original copies: same input first, then any (scope topic
		// or all may reach across inputs).
		ri.RefTimeline, ri.RefLane = findLane(tls, u.Input, u.RefTopic, u.RefPart, u.RefPID, -1, u.RefFirst)
		if ri.RefTimeline == "" {
			for _, tl := range tls {
				if id, lane := findLane([]Timeline{tl}, tl.Input, u.RefTopic, u.RefPart, u.RefPID, -1, u.RefFirst); id != "" {
					ri.RefTimeline, ri.RefLane = id, lane
					break
				}
			}
		}
		out[i] = ri
	}
	return out, c.runsTotal
}

// findLane finds the timeline of a partition and the lane of the session
// (epoch -1: any epoch) holding offset.
func findLane(tls []Timeline, input int32, topic string, partition int32, pid int64, epoch int32, offset int64) (string, int) {
	id := ""
	for _, tl := range tls {
		if tl.Input != input || tl.Topic != topic || tl.Partition != partition {
			continue
		}
		if id == "" {
			id = tl.ID
		}
		for j, s := range tl.Sessions {
			if s.ProducerID == pid && (epoch < 0 || s.ProducerEpoch == epoch) && s.FirstOffset <= offset && offset <= s.LastOffset {
				return tl.ID, j
			}
		}
	}
	return id, -1
}

func minPtr(a, b *int64) *int64 {
	if a == nil || (b != nil && *b < *a) {
		return copyPtr(b)
	}
	return a
}

func maxPtr(a, b *int64) *int64 {
	if a == nil || (b != nil && *b > *a) {
		return copyPtr(b)
	}
	return a
}

func derefOr(p *int64, d int64) int64 {
	if p == nil {
		return d
	}
	return *p
}

func nonNil[T any](s *[]T) {
	if *s == nil {
		*s = []T{}
	}
}

// addGaps puts each partition's absent ranges on its timeline, at most a
// few hundred per partition (gaps.parquet holds them all).
func addGaps(tls []Timeline, gaps []analysis.GapRow) {
	idx := map[[2]string]int{}
	for i := range tls {
		idx[[2]string{fmt.Sprint(tls[i].Input), tls[i].Dir}] = i
	}
	for _, g := range gaps {
		i, ok := idx[[2]string{fmt.Sprint(g.Input), g.Dir}]
		if !ok || len(tls[i].Gaps) >= 500 {
			continue
		}
		last := g.FirstOffset
		if g.LastOffset != nil {
			last = *g.LastOffset
		}
		tls[i].Gaps = append(tls[i].Gaps, GapSpan{First: g.FirstOffset, Last: last, Cause: g.Cause, Severity: string(g.Severity)})
	}
	for i := range tls {
		nonNil(&tls[i].Gaps)
	}
}
