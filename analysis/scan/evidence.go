package scan

import (
	"cmp"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// A topic filter chooses what a run reports, not what evidence it reads:
// the partitions it leaves out are still named to the checks (their
// dirs, Result.Unselected), and those of the topics Config.Evidence
// names are read whole, their records handed to Output.Evidence only.
// Nothing else of them (batches, files, findings, partition lines)
// leaves the scan.

// topicFilter is the scanner's state of the filter.
type topicFilter struct {
	sel                   selection
	unselected            unselectedDirs
	evidence              map[analysis.PartitionKey]*PartitionSummary
	selScratch, evScratch []analysis.PayloadRecordRow
}

// selection answers whether a topic is one the filter selects; the
// collector's alone. Rows come in runs of one topic, so the last answer
// is kept.
type selection struct {
	re     *regexp.Regexp
	last   string
	lastIn bool
}

// in reports whether topic is selected; a file outside any partition dir
// (topic "") always is.
func (s *selection) in(topic string) bool {
	if s.re == nil || topic == "" {
		return true
	}
	if topic != s.last {
		s.last, s.lastIn = topic, s.re.MatchString(topic)
	}
	return s.lastIn
}

// unselectedDirs keeps one entry per partition dir the filter left out.
type unselectedDirs struct {
	seen    map[analysis.PartitionKey]bool
	entries []*source.Entry
}

func (u *unselectedDirs) add(e *source.Entry) {
	dir := strings.TrimSuffix(e.Path, "/")
	if !strings.HasSuffix(e.Path, "/") {
		dir = path.Dir(e.Path)
	}
	k := analysis.PartitionKey{Input: int32(e.Input), Dir: dir}
	if u.seen == nil {
		u.seen = map[analysis.PartitionKey]bool{}
	}
	if !u.seen[k] {
		u.seen[k] = true
		u.entries = append(u.entries, e)
	}
}

func (u *unselectedDirs) sorted() []*source.Entry {
	slices.SortFunc(u.entries, func(a, b *source.Entry) int {
		return cmp.Or(cmp.Compare(a.Input, b.Input), strings.Compare(a.Path, b.Path))
	})
	return u.entries
}

// sourceOptions are the listing's options for the scan's filter.
func (s *scanner) sourceOptions() source.Options {
	opts := source.Options{Topic: s.cfg.Topic}
	if s.cfg.Topic != nil {
		opts.Evidence, opts.Unselected = s.cfg.Evidence, s.filter.unselected.add
	}
	return opts
}

// evidenceDone takes the end of a file read only as evidence: its
// partition is remembered (Result.Evidence), nothing else of it.
func (s *scanner) evidenceDone(f *fileDone) {
	s.filter.unselected.add(f.entry)
	if f.partKey == (analysis.PartitionKey{}) || s.filter.evidence[f.partKey] != nil {
		return
	}
	if s.filter.evidence == nil {
		s.filter.evidence = map[analysis.PartitionKey]*PartitionSummary{}
	}
	s.filter.evidence[f.partKey] = &PartitionSummary{PartitionSummary: analysis.PartitionSummary{Input: f.row.Input, Dir: f.partDir,
		Topic: *f.row.Topic, Partition: *f.row.Partition, DirState: f.dirState}, logDir: f.logDir}
}

// evidenceParts are the partitions read only as evidence, in the order of
// Result.Partitions, with their broker ids.
func (s *scanner) evidenceParts() []*PartitionSummary {
	var out []*PartitionSummary
	for _, p := range s.filter.evidence {
		if id, ok := s.brokers[p.logDir]; ok {
			p.BrokerID = &id
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *PartitionSummary) int {
		return cmp.Or(strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.Input, b.Input), strings.Compare(a.Dir, b.Dir))
	})
	return out
}

// splitRows parts rows into those of selected partitions and the
// evidence, in scratch slices reused by the next call.
func (s *scanner) splitRows(rows []analysis.PayloadRecordRow) (sel, ev []analysis.PayloadRecordRow) {
	if s.filter.sel.re == nil {
		return rows, nil
	}
	clear(s.filter.selScratch)
	clear(s.filter.evScratch)
	s.filter.selScratch, s.filter.evScratch = s.filter.selScratch[:0], s.filter.evScratch[:0]
	for i := range rows {
		if s.filter.sel.in(rows[i].Topic) {
			s.filter.selScratch = append(s.filter.selScratch, rows[i])
		} else {
			s.filter.evScratch = append(s.filter.evScratch, rows[i])
		}
	}
	return s.filter.selScratch, s.filter.evScratch
}

// selectedEntries drops the entries of partitions read as evidence: the
// internal topics' records come as rows, so this is only a guard.
func (s *scanner) selectedEntries(bs []EntryBatch) []EntryBatch {
	if s.filter.sel.re == nil {
		return bs
	}
	kept := bs[:0]
	for _, eb := range bs {
		if s.filter.sel.in(eb.Topic) {
			kept = append(kept, eb)
		} else {
			entrySlices.put(eb.Entries)
		}
	}
	return kept
}

// selectedEmptyDirs moves the empty dirs of evidence topics, which the
// listing kept, to the unselected.
func (s *scanner) selectedEmptyDirs() {
	if s.filter.sel.re == nil {
		return
	}
	kept := s.emptyDirs[:0]
	for _, e := range s.emptyDirs {
		if s.filter.sel.in(e.Partition.Topic) {
			kept = append(kept, e)
		} else {
			s.filter.unselected.add(e)
		}
	}
	s.emptyDirs = kept
}
