package html

import (
	"cmp"
	"path"
	"slices"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

// A log dir of thousands of partitions is mostly intact: the page lists
// what needs action one by one and counts the rest by topic, as scan's
// text does past a screen, so that it stays small and quick to draw.

// buildVerdicts fills the loss section: the verdicts across brokers that
// need action, then the copies that are not intact, and the intact ones
// counted by topic.
func (m *Model) buildVerdicts(sum *pipeline.Summary) {
	for _, cv := range sum.Clusters {
		if cv.NeedsAction() {
			m.Clusters = append(m.Clusters, cv)
		} else {
			m.ClustersIntact++
		}
	}
	byTopic := map[string]int{}
	for _, v := range sum.Verdicts {
		if !v.Intact {
			m.Verdicts = append(m.Verdicts, v)
			continue
		}
		m.Intact++
		byTopic[v.Topic]++
	}
	for t, n := range byTopic {
		m.IntactByTopic = append(m.IntactByTopic, TopicCopies{Topic: t, Copies: n})
	}
	slices.SortFunc(m.IntactByTopic, func(a, b TopicCopies) int { return cmp.Compare(a.Topic, b.Topic) })
}

// countLogDirs counts the log dirs the partitions lie in.
func countLogDirs(parts []analysis.PartitionSummary) int {
	type logDir struct {
		input int32
		dir   string
	}
	dirs := map[logDir]bool{}
	for _, p := range parts {
		dirs[logDir{p.Input, path.Dir(p.Dir)}] = true
	}
	return len(dirs)
}

// drawnTimelines keeps the producer timelines the page draws: those of
// the partitions with a duplicate run, an absent range or an aborted
// transaction first, then the others in partition order, up to
// maxTimelines; it returns how many it left out. A run's timelines are
// always kept: its link needs both ends.
func drawnTimelines(tls []Timeline, runs []RunInfo) ([]Timeline, int) {
	if len(tls) <= maxTimelines {
		return tls, 0
	}
	linked := map[string]bool{}
	for _, r := range runs {
		linked[r.Timeline], linked[r.RefTimeline] = true, true
	}
	keep := make([]bool, len(tls))
	n := 0
	for i := range tls {
		if linked[tls[i].ID] || (n < maxTimelines && notable(&tls[i])) {
			keep[i] = true
			n++
		}
	}
	for i := range tls {
		if n >= maxTimelines {
			break
		}
		if !keep[i] {
			keep[i] = true
			n++
		}
	}
	var out []Timeline
	for i := range tls {
		if keep[i] {
			out = append(out, tls[i])
		}
	}
	return out, len(tls) - len(out)
}

// notable: the timeline shows more than sessions writing in turn.
func notable(tl *Timeline) bool {
	if len(tl.Gaps) > 0 || len(tl.Runs) > 0 {
		return true
	}
	for _, s := range tl.Sessions {
		if len(s.AbortedSpans) > 0 || len(s.AbortMarkers) > 0 || s.SequenceGaps > 0 || s.DamagedBatches > 0 {
			return true
		}
	}
	return false
}
