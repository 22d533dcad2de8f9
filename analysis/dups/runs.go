package dups

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

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
	// Attribution of the two PIDs and how the PID changed, as in
	// DuplicateRow (empty or null when unknown).
	TransactionalID      string `json:"transactional_id"`
	AllocatedByBroker    *int32 `json:"allocated_by_broker"`
	RefTransactionalID   string `json:"ref_transactional_id"`
	RefAllocatedByBroker *int32 `json:"ref_allocated_by_broker"`
	PIDChange            string `json:"pid_change"`
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
				u.RefPID == *r.RefProducerID && u.PIDChange == r.PIDChange && r.Offset-u.Last <= maxRunStep && ref > u.RefLast-maxRunStep && ref-u.RefLast <= maxRunStep && ref != u.RefLast {
				u.Last = r.Offset
				u.RefFirst, u.RefLast = min(u.RefFirst, ref), ref
				u.Records++
				u.count(r)
				continue
			}
		}
		runs = append(runs, Run{Input: r.Input, Topic: r.Topic, Partition: r.Partition, ProducerID: r.ProducerID, Epoch: r.ProducerEpoch,
			Class: r.Class, RefTopic: *r.RefTopic, RefPart: *r.RefPartition, RefPID: *r.RefProducerID,
			First: r.Offset, Last: r.Offset, RefFirst: ref, RefLast: ref, Records: 1, GapMillis: r.GapMillis,
			TransactionalID: r.TransactionalID, AllocatedByBroker: r.AllocatedByBroker, RefTransactionalID: r.RefTransactionalID,
			RefAllocatedByBroker: r.RefAllocatedByBroker, PIDChange: r.PIDChange})
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
//
// With attribution (see DuplicateRow) the PIDs are named, and how the PID
// changed is said before the class:
//
//	payments-0: PID 5000 (epoch 0, txn id payments-app, block of broker 3) resent 25 records first written by PID 4000 (txn id payments-app, broker 2) — ..., 2.1 s after PID 4000's last write; PID change under the stable transactional id payments-app: the coordinator rotated it from PID 4000 to PID 5000 (epoch exhaustion) [restart-resend]
func (u *Run) String() string {
	writer := fmt.Sprintf("PID %d (epoch %d%s)", u.ProducerID, u.Epoch, owner(", ", u.TransactionalID, u.AllocatedByBroker, "block of broker"))
	if u.ProducerID < 0 {
		writer = "a non-idempotent producer (PID -1)"
	}
	refPID := fmt.Sprintf("PID %d", u.RefPID)
	refOwner := ""
	if o := owner("", u.RefTransactionalID, u.RefAllocatedByBroker, "broker"); o != "" {
		refOwner = " (" + o + ")"
	}
	where := ""
	if u.RefTopic != u.Topic || u.RefPart != u.Partition {
		where = fmt.Sprintf(" in %s-%d", u.RefTopic, u.RefPart)
	}
	recs := fmt.Sprintf("%d record%s", u.Records, plural(int(u.Records), "", "s"))
	var what string
	switch u.Class {
	case ClassRestartResend:
		what = fmt.Sprintf("resent %s first written by %s%s%s", recs, refPID, refOwner, where)
	case ClassTxnRetry:
		what = fmt.Sprintf("retried %s of an aborted transaction of %s%s%s", recs, refPID, refOwner, where)
	default:
		what = fmt.Sprintf("wrote %s already written by %s%s%s", recs, refPID, refOwner, where)
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
	if c := PIDChangeText(u.PIDChange, u.TransactionalID, u.ProducerID, u.RefPID); c != "" {
		note += "; " + c
	}
	return fmt.Sprintf("%s-%d: %s %s — %s%s%s [%s]", u.Topic, u.Partition, writer, what, span, gap, note, u.Class)
}

// owner names a PID's transactional id and allocating broker, e.g. "txn
// id payments-app, block of broker 3", after prefix; "" when neither is
// known.
func owner(prefix, tid string, broker *int32, brokerWord string) string {
	var parts []string
	if tid != "" {
		parts = append(parts, "txn id "+tid)
	}
	if broker != nil {
		parts = append(parts, fmt.Sprintf("%s %d", brokerWord, *broker))
	}
	if len(parts) == 0 {
		return ""
	}
	return prefix + strings.Join(parts, ", ")
}

// PIDChangeText explains a pid_change value (see DuplicateRow) for the
// later writer pid (of transactional id tid) and the earlier refPID; ""
// for an empty or unknown value.
func PIDChangeText(change, tid string, pid, refPID int64) string {
	switch change {
	case analysis.PIDChangeRotation:
		return fmt.Sprintf("PID change under the stable transactional id %s: the coordinator rotated it from PID %d to PID %d (epoch exhaustion)", tid, refPID, pid)
	case analysis.PIDChangeNewUnderTxnID:
		return fmt.Sprintf("PID change under the stable transactional id %s, from PID %d to PID %d (epoch exhaustion or a fenced producer)", tid, refPID, pid)
	case analysis.PIDChangeIdempotentRestart:
		return "idempotent-only restart: no transactional id, so every restart gets a new PID"
	}
	return ""
}

// AttributionNote is what attribution adds to the explanation of a later
// copy in duplicates.parquet, in the words of the report line: the two
// PIDs' transactional ids and brokers and the PID change; "" when nothing
// is known.
func AttributionNote(r *analysis.DuplicateRow) string {
	if r.RefProducerID == nil {
		return ""
	}
	var s string
	if o := owner("", r.TransactionalID, r.AllocatedByBroker, "block of broker"); o != "" && r.ProducerID >= 0 {
		s += fmt.Sprintf("; PID %d: %s", r.ProducerID, o)
	}
	if o := owner("", r.RefTransactionalID, r.RefAllocatedByBroker, "broker"); o != "" {
		s += fmt.Sprintf("; PID %d: %s", *r.RefProducerID, o)
	}
	if c := PIDChangeText(r.PIDChange, r.TransactionalID, r.ProducerID, *r.RefProducerID); c != "" {
		s += "; " + c
	}
	return s
}
