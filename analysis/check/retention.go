package check

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/topics"
)

// Retention is what a topic's configuration says of deleting old
// segments: retention.ms and retention.bytes (-1 is unlimited), and
// whether the KRaft metadata set each (else the broker default holds:
// 7 days, unlimited size), with cleanup.policy when it was set.
type Retention struct {
	Ms, Bytes       int64
	MsSet, BytesSet bool
	Policy          string
	PolicySet       bool
}

// defaultRetentionMs is the broker's log.retention.hours default, 168.
const defaultRetentionMs = int64(7 * 24 * time.Hour / time.Millisecond)

// AddTopicRetention adds the retention settings of topics, known only
// once the metadata log has been read: the ledger is classified at Finish.
func (c *Checker) AddTopicRetention(rs map[string]Retention) {
	if len(rs) == 0 {
		return
	}
	if c.o.TopicRetention == nil {
		c.o.TopicRetention = map[string]Retention{}
	}
	for t, r := range rs {
		c.o.TopicRetention[t] = r
	}
}

// retention is the topic's settings, with the broker defaults where the
// metadata says nothing.
func (p *partition) retention() Retention {
	r := p.c.o.TopicRetention[p.topic]
	if !r.MsSet {
		r.Ms = defaultRetentionMs
	}
	if !r.BytesSet {
		r.Bytes = -1
	}
	return r
}

// startEvidence is what the copy says of offsets missing below its first
// segment: the cause and severity they take, and why.
type startEvidence struct {
	cause string
	sev   finding.Severity
	why   string
}

// A broker deletes a partition's oldest segments by retention (time or
// size, with cleanup.policy delete) or DeleteRecords, and then moves its
// log start: the leader-epoch cache drops the entries below it and
// rewrites the first to start there (LeaderEpochFileCache
// truncateFromStart, flushed at once by a scheduled task), and the
// log-start-offset-checkpoint names the log start only while it is past
// the first segment's base (LogManager writes no entry otherwise). So a
// first segment named above 0 is retention only when the copy shows it.

// belowStart weighs the evidence that the offsets below first, the first
// segment on disk, were deleted by design.
func (g *gapLedger) belowStart(first *segSummary, lso int64, lsoKnown bool) startEvidence {
	p := g.p
	switch {
	case p.c.isFile(p.key.input):
		// A segment given on its own: the offsets below it are not in
		// the input, and nothing of its partition dir is to weigh.
		return startEvidence{CauseRetention, finding.Note, "the oldest segments were deleted by retention (or DeleteRecords), or were not copied"}
	case lsoKnown && lso >= first.base:
		return startEvidence{CauseRetention, finding.Note,
			fmt.Sprintf("the log start offset checkpoint says %d: deleted by retention or DeleteRecords", lso)}
	case topics.TopicOf(p.topic) == topics.ClusterMetadata && p.logStartSeen >= first.base:
		return startEvidence{CauseRetention, finding.Note, fmt.Sprintf("the oldest KRaft snapshot ends at %d: deleted after it", p.logStartSeen)}
	case first.firstIntact < 0 && first.lead == nil && len(p.segs) == 1:
		// Retention that deletes every segment first rolls an empty one
		// at the log end; so does DeleteRecords to the log end.
		return startEvidence{CauseRetention, finding.Note,
			fmt.Sprintf("the only segment, named for %d, is empty, as the broker leaves a log whose every segment retention or DeleteRecords deleted "+
				"(it rolls an empty active segment at the log end first)", first.base)}
	case p.epochs != nil && p.epochs.StartOffset >= first.base:
		return startEvidence{CauseRetention, finding.Note,
			fmt.Sprintf("the leader-epoch-checkpoint's first entry (epoch %d) starts at %d, where the broker moves it when retention or DeleteRecords "+
				"advances the log start", p.epochs.Epoch, p.epochs.StartOffset)}
	}
	age, ageWhy := g.ageEvidence(first)
	if e := p.epochs; e != nil {
		why := fmt.Sprintf("the leader-epoch-checkpoint still says epoch %d began at offset %d, below the first segment (%d), "+
			"but the broker moves that entry to the new log start when retention or DeleteRecords deletes segments; %s",
			e.Epoch, e.StartOffset, first.base, ageWhy)
		// The broker flushes the moved entry by a task it schedules at
		// once; only a clean stop vouches that it reached the disk.
		if g.ld.clean {
			return startEvidence{CauseMissingSegment, finding.Error, why + ": the segment holding them was removed otherwise (deleted by hand, or not copied)"}
		}
		return startEvidence{CauseMissingSegment, finding.Warning,
			why + ": without a clean shutdown the moved entry may not have reached the disk, so retention cannot be ruled out"}
	}
	missing := "no leader-epoch-checkpoint was read and the log start offset checkpoint has no entry above it"
	if age == ageOld {
		return startEvidence{CauseRetention, finding.Note, fmt.Sprintf("%s; %s", missing, ageWhy)}
	}
	return startEvidence{CauseMissingSegment, finding.Warning, fmt.Sprintf("retention is not shown: %s, and %s", missing, ageWhy)}
}

type age int

const (
	ageUnknown age = iota // no timestamps, or retention cannot delete
	ageOld                // retention could have deleted the segment
	ageYoung              // the segment was younger than retention.ms
)

// ageEvidence compares the age of the missing segment with the topic's
// retention: its records are no newer than the next segment's first
// batch, and retention deletes a segment once its newest record is
// retention.ms older than the broker's clock, which is at least the
// newest record of the partition.
func (g *gapLedger) ageEvidence(first *segSummary) (age, string) {
	p := g.p
	r := p.retention()
	src := "the broker default"
	if r.MsSet {
		src = "the topic's config"
	}
	if r.PolicySet && !policyDeletes(r.Policy) {
		return ageYoung, fmt.Sprintf("cleanup.policy is %q, so retention deletes no segment", r.Policy)
	}
	if r.Bytes > 0 {
		return ageOld, fmt.Sprintf("retention.bytes is %d, so retention by size may have deleted it", r.Bytes)
	}
	if r.Ms < 0 {
		return ageYoung, "retention.ms is -1 and retention.bytes unlimited: retention is off"
	}
	if first.firstTs < 0 || p.maxTs < 0 {
		return ageUnknown, fmt.Sprintf("no timestamps bound the missing segment's age against retention.ms %d (%s)", r.Ms, src)
	}
	span := p.maxTs - first.firstTs
	if span >= r.Ms {
		return ageOld, fmt.Sprintf("the first record of %s (timestamp %d) is %s older than the newest record, past retention.ms %d (%s)",
			path.Base(first.path), first.firstTs, time.Duration(span)*time.Millisecond, r.Ms, src)
	}
	return ageYoung, fmt.Sprintf("the next segment's first record (timestamp %d) is only %s older than the newest record, against retention.ms %d (%s), "+
		"and retention by size is off", first.firstTs, time.Duration(span)*time.Millisecond, r.Ms, src)
}

// policyDeletes reports whether a cleanup.policy value lists delete.
func policyDeletes(policy string) bool {
	for _, s := range strings.Split(policy, ",") {
		if strings.EqualFold(strings.TrimSpace(s), "delete") {
			return true
		}
	}
	return false
}
