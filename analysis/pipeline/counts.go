package pipeline

import (
	"path"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/scan"
)

// copyFinder finds the partition copy a finding is about. Most findings
// are in one of the copy's own files, but some sit elsewhere and still
// name the partition: a checkpoint entry in its log dir's checkpoint file
// (checkpoint-ahead), the partition dir itself (missing-segment). Each
// finding goes to one copy at most, so the copies' counts add up to no
// more than the run's.
type copyFinder struct {
	byDir    map[copyDir]*scan.PartitionSummary
	byLogDir map[copyName]*scan.PartitionSummary
}

type copyDir struct {
	input int32
	dir   string
}

type copyName struct {
	input         int32
	logDir, topic string
	partition     int32
}

func newCopyFinder(parts []*scan.PartitionSummary) *copyFinder {
	f := &copyFinder{byDir: map[copyDir]*scan.PartitionSummary{}, byLogDir: map[copyName]*scan.PartitionSummary{}}
	for _, p := range parts {
		f.byDir[copyDir{p.Input, p.Dir}] = p
		if p.Dir == "." {
			continue // a partition dir given as the input: its log dir is not
		}
		// A log dir may also hold a copy being deleted or moved (a
		// -delete or -future dir): its checkpoints name the live one.
		k := copyName{p.Input, path.Dir(p.Dir), p.Topic, p.Partition}
		if q := f.byLogDir[k]; q == nil || q.DirState != "" {
			f.byLogDir[k] = p
		}
	}
	return f
}

// find returns the copy a finding names, or nil: a finding about no
// partition, or about one with no dir in the input.
func (f *copyFinder) find(a *analysis.AnomalyRow) *scan.PartitionSummary {
	if a.Topic == nil || a.Partition == nil {
		return nil
	}
	same := func(p *scan.PartitionSummary) bool {
		return p != nil && p.Topic == *a.Topic && p.Partition == *a.Partition
	}
	// The partition dir itself, a file in it, a checkpoint of its log dir.
	if p := f.byDir[copyDir{a.Input, strings.TrimSuffix(a.File, "/")}]; same(p) {
		return p
	}
	dir := analysis.PartitionDir(a.File)
	if p := f.byDir[copyDir{a.Input, dir}]; same(p) {
		return p
	}
	if p := f.byLogDir[copyName{a.Input, dir, *a.Topic, *a.Partition}]; p != nil {
		return p
	}
	return nil
}
