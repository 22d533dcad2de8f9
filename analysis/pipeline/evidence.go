package pipeline

import (
	"regexp"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/check"
)

// evidence takes the records of the internal topics a topic filter left
// out (scan.Output.Evidence): they bear on the partitions selected (who
// owns a producer id, which transactions are open, what a topic's config
// is, which groups consumed what), so the attribution and the consumers
// read them as they do without a filter. Nothing else sees them.
func (f *feed) evidence(rows []analysis.PayloadRecordRow) error {
	if f.attr != nil {
		f.attr.records(rows)
	}
	if f.cons != nil {
		f.cons.Add(f.live.rows(rows))
	}
	return nil
}

// evidenceTopics are the topics read whatever the topic filter says:
// the internal ones, when the attribution and the consumers read them.
func (f *feed) evidenceTopics() func(string) bool {
	if f.attr == nil {
		return nil
	}
	return internalTopic
}

// reported keeps what a run reports about the partitions the topic filter
// selects: a finding about a partition left out (one the attribution
// found in an internal topic read as evidence, say) is not reported, nor
// its verdict or its losses. Findings about no partition (a log dir's
// checkpoints, an archive) stay.
func reported(topic *regexp.Regexp, all []analysis.AnomalyRow, cr *check.Result) []analysis.AnomalyRow {
	if topic == nil {
		return all
	}
	keep := func(t string) bool { return topic.MatchString(t) }
	out := all[:0]
	for _, a := range all {
		if a.Topic == nil || *a.Topic == "" || keep(*a.Topic) {
			out = append(out, a)
		}
	}
	verdicts := cr.Partitions[:0]
	for _, v := range cr.Partitions {
		if keep(v.Topic) {
			verdicts = append(verdicts, v)
		}
	}
	cr.Partitions = verdicts
	gaps := cr.Gaps[:0]
	for _, g := range cr.Gaps {
		if keep(g.Topic) {
			gaps = append(gaps, g)
		}
	}
	cr.Gaps = gaps
	return out
}
