package dups

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ksleuth/ksleuth/analysis"
)

// Run is a stretch of later occurrences written by one producer into one
// partition, copying one earlier producer's records in order: the unit
// the human report is about ("PID 1002 resent 25 records ...").
type Run struct {
	Input      int32  `json:"input"`
	Topic      string `json:"topic"`
	Partition  int32  `json:"partition"`
	ProducerID int64  `json:"producer_id"`
	Epoch      int32  `json:"producer_epoch"`
	Class      string `json:"class"`
	RefTopic   string `json:"ref_topic"`
	RefPart    int32  `json:"ref_partition"`
	RefPID     int64  `json:"ref_producer_id"`
	// First and Last bound the run's offsets; RefFirst and RefLast those of
	// the copies it repeats (the smallest and largest).
	First    int64 `json:"first_offset"`
	Last     int64 `json:"last_offset"`
	RefFirst int64 `json:"ref_first_offset"`
	RefLast  int64 `json:"ref_last_offset"`
	Records  int64 `json:"records"`
	// GapMillis is the gap of the run's first record (see DuplicateRow).
	GapMillis *int64 `json:"gap_ms"`
	Damaged   int64  `json:"damaged"`
	Aborted   int64  `json:"aborted"`
}

// maxRunStep is how far apart two consecutive members of a run may be:
// 2 lets a run continue over a transaction marker between batches.
const maxRunStep = 2

// Runs collapses later occurrences (rows with a class) into runs, sorted
// by impact: most records first, then topic, partition, offset. rows is
// reordered.
func Runs(rows []analysis.DuplicateRow) []Run {
	later := rows[:0:0]
	for _, r := range rows {
		if r.Class != "" {
			later = append(later, r)
		}
	}
	slices.SortFunc(later, func(a, b analysis.DuplicateRow) int {
		return cmp.Or(cmp.Compare(a.Input, b.Input), cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition),
			cmp.Compare(a.ProducerID, b.ProducerID), cmp.Compare(a.ProducerEpoch, b.ProducerEpoch), cmp.Compare(a.Offset, b.Offset))
	})
	var runs []Run
	for i := range later {
		r := &later[i]
		ref := *r.RefOffset
		if n := len(runs); n > 0 {
			u := &runs[n-1]
			if u.Input == r.Input && u.Topic == r.Topic && u.Partition == r.Partition && u.ProducerID == r.ProducerID &&
				u.Epoch == r.ProducerEpoch && u.Class == r.Class && u.RefTopic == *r.RefTopic && u.RefPart == *r.RefPartition &&
				u.RefPID == *r.RefProducerID && r.Offset-u.Last <= maxRunStep && ref > u.RefLast-maxRunStep && ref-u.RefLast <= maxRunStep && ref != u.RefLast {
				u.Last = r.Offset
				u.RefFirst, u.RefLast = min(u.RefFirst, ref), ref
				u.Records++
				u.count(r)
				continue
			}
		}
		runs = append(runs, Run{Input: r.Input, Topic: r.Topic, Partition: r.Partition, ProducerID: r.ProducerID, Epoch: r.ProducerEpoch,
			Class: r.Class, RefTopic: *r.RefTopic, RefPart: *r.RefPartition, RefPID: *r.RefProducerID,
			First: r.Offset, Last: r.Offset, RefFirst: ref, RefLast: ref, Records: 1, GapMillis: r.GapMillis})
		runs[len(runs)-1].count(r)
	}
	slices.SortStableFunc(runs, func(a, b Run) int {
		return cmp.Or(cmp.Compare(b.Records, a.Records), cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition),
			cmp.Compare(a.First, b.First), cmp.Compare(a.Input, b.Input))
	})
	return runs
}

func (u *Run) count(r *analysis.DuplicateRow) {
	if r.Damaged {
		u.Damaged++
	}
	if r.TxnState == "aborted" {
		u.Aborted++
	}
}

// String is the report line of a run, e.g.
//
//	orders-0: PID 1002 (epoch 0) resent 25 records first written by PID 1001 — offsets 600–624 repeat 575–599, 2.1 s after PID 1001's last write [restart-resend]
func (u *Run) String() string {
	writer := fmt.Sprintf("PID %d (epoch %d)", u.ProducerID, u.Epoch)
	if u.ProducerID < 0 {
		writer = "a non-idempotent producer (PID -1)"
	}
	refPID := fmt.Sprintf("PID %d", u.RefPID)
	where := ""
	if u.RefTopic != u.Topic || u.RefPart != u.Partition {
		where = fmt.Sprintf(" in %s-%d", u.RefTopic, u.RefPart)
	}
	recs := fmt.Sprintf("%d record%s", u.Records, plural(int(u.Records), "", "s"))
	var what string
	switch u.Class {
	case ClassRestartResend:
		what = fmt.Sprintf("resent %s first written by %s%s", recs, refPID, where)
	case ClassTxnRetry:
		what = fmt.Sprintf("retried %s of an aborted transaction of %s%s", recs, refPID, where)
	default:
		what = fmt.Sprintf("wrote %s already written by %s%s", recs, refPID, where)
	}
	span := fmt.Sprintf("offset %d repeats %d", u.First, u.RefFirst)
	if u.Records > 1 || u.First != u.Last {
		span = fmt.Sprintf("offsets %d–%d repeat %d–%d", u.First, u.Last, u.RefFirst, u.RefLast)
	}
	gap := ""
	if u.GapMillis != nil {
		switch {
		case u.Class == ClassRestartResend:
			gap = fmt.Sprintf(", %s after %s's last write", fmtGap(*u.GapMillis), refPID)
		case *u.GapMillis >= 0:
			gap = fmt.Sprintf(", %s later", fmtGap(*u.GapMillis))
		default:
			gap = fmt.Sprintf(", %s earlier by timestamp", fmtGap(-*u.GapMillis))
		}
	}
	note := ""
	if u.Damaged > 0 {
		note += fmt.Sprintf(" (%d in damaged batches)", u.Damaged)
	}
	if u.Aborted > 0 {
		note += fmt.Sprintf(" (%d aborted)", u.Aborted)
	}
	return fmt.Sprintf("%s-%d: %s %s — %s%s%s [%s]", u.Topic, u.Partition, writer, what, span, gap, note, u.Class)
}
