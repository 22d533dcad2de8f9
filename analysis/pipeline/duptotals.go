package pipeline

import (
	"cmp"
	"slices"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
)

// DupSummary is what the dups command says of the duplicates: the last
// JSON line, and the totals of the text.
type DupSummary struct {
	Type       string       `json:"type"`
	Records    int64        `json:"records"`
	Groups     int64        `json:"groups"`
	Duplicates int64        `json:"duplicates"`
	ByClass    []ClassTotal `json:"by_class"`
	ByTopic    []TopicTotal `json:"by_topic"`
	Runs       int          `json:"runs"`
	SpillFiles int          `json:"spill_files"`
	SpillBytes int64        `json:"spill_bytes"`
	Findings   int64        `json:"findings"`
	analysis.CrashedCopies
}

// ClassTotal counts the later copies of a class, and those of them graded
// strong and weak (possible); a group counts once, under the first class
// of DupClasses one of its copies has (strong before possible), so the
// groups add up to the summary's.
type ClassTotal struct {
	Class    string `json:"class"`
	Records  int64  `json:"records"`
	Groups   int64  `json:"groups"`
	Strong   int64  `json:"strong"`
	Possible int64  `json:"possible"`
}

// TopicTotal counts the later copies of one topic.
type TopicTotal struct {
	Topic    string           `json:"topic"`
	Records  int64            `json:"records"`
	ByClass  map[string]int64 `json:"by_class"`
	Strong   int64            `json:"strong"`
	Possible int64            `json:"possible"`
}

// groupRank is where a group counts: its most telling copy, a strong
// resend first, a repeat last.
func groupRank(r *analysis.DuplicateRow) int {
	k := slices.Index(DupClasses, r.Class)
	if r.Evidence != dups.EvidenceStrong {
		k += len(DupClasses)
	}
	return k
}

// DupClasses are the classes of later copies, the most telling first.
var DupClasses = []string{dups.ClassRestartResend, dups.ClassReprocess, dups.ClassRebalance, dups.ClassTxnRetry, dups.ClassRetry,
	dups.ClassDedupFailure, dups.ClassRepeat}

// DupTotals counts the later copies of duplicate groups by class and by
// topic as the groups stream by (Add each row, in the detector's order),
// so that memory does not grow with the number of duplicates.
type DupTotals struct {
	byClass map[string]*ClassTotal
	topics  map[string]*TopicTotal
	group   int64
	rank    int
}

// NewDupTotals returns empty totals.
func NewDupTotals() *DupTotals {
	t := &DupTotals{byClass: map[string]*ClassTotal{}, topics: map[string]*TopicTotal{}, group: -1, rank: -1}
	for _, c := range DupClasses {
		t.byClass[c] = &ClassTotal{Class: c}
	}
	return t
}

// endGroup counts the group that ended under its most telling copy.
func (t *DupTotals) endGroup() {
	if t.rank >= 0 {
		t.byClass[DupClasses[t.rank%len(DupClasses)]].Groups++
	}
	t.rank = -1
}

// Add counts one row. Groups come out in group id order, the parts of one
// together: a new id is a new group, counted when it ends.
func (t *DupTotals) Add(r *analysis.DuplicateRow) {
	if r.GroupID != t.group {
		t.endGroup()
		t.group = r.GroupID
	}
	if r.Class == "" {
		return
	}
	if k := groupRank(r); k >= 0 && (t.rank < 0 || k < t.rank) {
		t.rank = k
	}
	c := t.byClass[r.Class]
	c.Records++
	tt := t.topics[r.Topic]
	if tt == nil {
		tt = &TopicTotal{Topic: r.Topic, ByClass: map[string]int64{}}
		t.topics[r.Topic] = tt
	}
	tt.Records++
	tt.ByClass[r.Class]++
	switch r.Evidence {
	case dups.EvidenceStrong:
		c.Strong++
		tt.Strong++
	case dups.EvidenceWeak:
		c.Possible++
		tt.Possible++
	}
}

// Summary ends the last group and sums up: st is the detector's
// statistics, runs the runs the copies made, spill what the run builder
// spilled, findings the inputs' findings of severity error or warning.
func (t *DupTotals) Summary(st dups.Stats, runs, spillFiles int, spillBytes, findings int64) DupSummary {
	t.endGroup()
	sum := DupSummary{Type: "summary", Records: st.Records, Groups: st.Groups, Duplicates: st.Duplicates, Runs: runs,
		SpillFiles: st.SpillFiles + spillFiles, SpillBytes: st.SpillBytes + spillBytes, Findings: findings}
	for _, c := range DupClasses {
		sum.ByClass = append(sum.ByClass, *t.byClass[c])
	}
	for _, tt := range t.topics {
		sum.ByTopic = append(sum.ByTopic, *tt)
	}
	slices.SortFunc(sum.ByTopic, func(a, b TopicTotal) int {
		return cmp.Or(cmp.Compare(b.Records, a.Records), cmp.Compare(a.Topic, b.Topic))
	})
	if sum.ByTopic == nil {
		sum.ByTopic = []TopicTotal{}
	}
	return sum
}
