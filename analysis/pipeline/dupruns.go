package pipeline

import (
	"context"
	"errors"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
)

// DupRuns finishes the duplicate detector for the dups command and
// returns the later copies made into runs, with the totals of the
// summary; the caller closes the run builder. findings counts the inputs'
// damage findings for the summary.
//
// res is the run that fed the detector; nil when it was fed from earlier
// scans' tables, whose commits idx holds to name the groups that consumed
// each copy. group, when set, gets each group with its consumed_by filled
// in. The runs are built on disk under tmp beyond runBudget, and the
// totals are counted as the groups stream by: the report's memory does
// not grow with the number of duplicates.
func DupRuns(ctx context.Context, det *dups.Detector, res *Result, idx Consumed, tmp string, runBudget, findings int64,
	group func([]analysis.DuplicateRow) error) (*dups.RunBuilder, DupSummary, error) {
	rb := dups.NewRunBuilder(tmp, runBudget)
	totals := NewDupTotals()
	emit := func(rows []analysis.DuplicateRow) error {
		for i := range rows {
			r := &rows[i]
			if res == nil {
				r.ConsumedBy = idx.Groups(r.Input, r.Dir, r.Topic, r.Partition, r.Offset)
			}
			totals.Add(r)
			if r.Class == "" {
				continue
			}
			if err := rb.Add(r); err != nil {
				return err
			}
		}
		if group != nil {
			return group(rows)
		}
		return nil
	}
	if res != nil {
		emit = res.AnnotateDuplicates(emit)
	}
	st, err := det.Finish(ctx, emit)
	if err != nil {
		return nil, DupSummary{}, errors.Join(err, rb.Close())
	}
	nruns, err := rb.Finish(ctx)
	if err != nil {
		return nil, DupSummary{}, errors.Join(err, rb.Close())
	}
	sum := totals.Summary(st, nruns, rb.SpillFiles(), rb.SpillBytes(), findings)
	sum.CrashedCopies = res.Crashed()
	return rb, sum, nil
}
