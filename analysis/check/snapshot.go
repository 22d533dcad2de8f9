package check

import (
	"cmp"
	"fmt"
	"path"
	"slices"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/snapshot"
)

// snapshotFile takes a producer snapshot: it is compared with the producer
// state rebuilt from the batches below its end offset, now if those
// batches have been replayed, or when the replay reaches it.
func (p *partition) snapshotFile(file string, data []byte) {
	if data == nil {
		return
	}
	f, err := snapshot.ParseNamed(file, data)
	for _, x := range finding.FromState(p.where(file), snapshot.KindSnapshot, err) {
		p.add(x)
	}
	if f == nil || err != nil {
		return
	}
	if !p.remoteSnapshotEnd(file, f) {
		return
	}
	if f.EndOffset > 0 {
		p.starts = append(p.starts, segmentStart{off: f.EndOffset, file: file, why: "its producer snapshot, written when a segment rolls, remains"})
	}
	switch end := f.EndOffset; {
	case p.prevLast < end:
		p.snaps = append(p.snaps, f)
		slices.SortStableFunc(p.snaps, func(a, b *snapshot.File) int { return cmp.Compare(a.EndOffset, b.EndOffset) })
	case p.atStart != nil && p.startBase == end:
		// Named after the segment just read: the state before it.
		p.compareSnapshot(f, p.atStart, -1)
	case p.atStart != nil && p.startBase < end && !p.sinceOver:
		// Inside the segment just read: the state before it, and its
		// batches up to the snapshot.
		if st := p.stateAt(end); st != nil {
			p.compareSnapshot(f, st, -1)
			return
		}
		p.add(finding.New(p.where(file), finding.KindNotVerifiable, -1, end,
			"snapshot ends at %d, inside a batch of the log: a broker writes snapshots at batch boundaries, so its producers were not compared with the log", end))
	case p.firstSegBase >= 0 && end <= p.firstSegBase:
		p.compareSnapshot(f, p.st, -1) // refers to deleted data: a note
	case p.atStart != nil && p.startBase < end:
		p.add(finding.New(p.where(file), finding.KindNotVerifiable, -1, end,
			"snapshot ends at %d, inside a segment with more than %d producer batches before it: its producers were not compared with the log", end, maxSince))
	default:
		p.add(finding.New(p.where(file), finding.KindNotVerifiable, -1, end,
			"snapshot ends at %d, inside a segment that came before it in the input (not in a log dir's order): its producers were not compared with the log", end))
	}
}

// maxSince bounds the producer batches of one segment kept for a snapshot
// inside it (64 bytes each: 16 MiB at most).
const maxSince = 1 << 18

// stateAt is the producer state below offset end, inside the segment just
// read: atStart with the segment's batches below end applied; nil when a
// batch spans end.
func (p *partition) stateAt(end int64) analysis.ProducerState {
	st := p.atStart.Clone()
	spans := false
	p.since.each(func(b *analysis.ProducerBatch) bool {
		if b.LastOffset >= end {
			spans = b.BaseOffset < end
			return false
		}
		st.Apply(*b)
		return true
	})
	if spans {
		return nil
	}
	st.SetMapEndOffset(end)
	return st
}

// finishSnapshots compares the snapshots the replay never reached with the
// state at the log end.
func (p *partition) finishSnapshots(logEnd int64) {
	for _, f := range p.snaps {
		p.compareSnapshot(f, p.st, logEnd)
	}
	p.snaps = nil
}

// compactedHere reports whether the partition shows signs of compaction.
func (p *partition) compactedHere() bool {
	if sh := p.shapes; len(p.evidence) > 0 || sh.fewer+sh.empty+sh.horizon > 0 {
		return true
	}
	for _, s := range p.segs {
		if s.gapNote != "" {
			return true
		}
	}
	return false
}

// compareSnapshot compares snapshot f with st, the producer state rebuilt
// from the batches below its end offset. logEnd ≥ 0 when called after the
// last batch (the log end offset), -1 otherwise.
func (p *partition) compareSnapshot(f *snapshot.File, st analysis.ProducerState, logEnd int64) {
	file := f.Path
	end := f.EndOffset
	w := p.where(file)
	if why, cut := p.cutWhy(); logEnd >= 0 && end > logEnd && cut {
		// The log read ends where the archive did: the snapshot is
		// ahead of what was read, not of the broker's log.
		p.add(finding.NewSev(w, finding.KindSnapshotAhead, finding.Note, -1, end,
			"snapshot covers offsets below %d but the log read ends at %d: %s, so the rest of the log was not read (unread, not verified)",
			end, logEnd, why))
	} else if logEnd >= 0 && end > logEnd {
		p.add(finding.New(w, finding.KindSnapshotAhead, -1, end,
			"snapshot covers offsets below %d but the log ends at %d: the copy was taken while the broker was writing, or the log was truncated after the snapshot",
			end, logEnd))
	}
	cover := p.firstSegBase
	if len(p.segs) == 0 {
		switch {
		case len(f.Entries) == 0:
		case p.c.isFile(p.key.input):
			p.add(finding.New(w, finding.KindNotVerifiable, -1, end,
				"checked on its own; give its partition dir to check its %d producers against the log", len(f.Entries)))
		default:
			p.add(finding.New(w, finding.KindNotVerifiable, -1, end,
				"the partition dir holds no .log file, so the snapshot's %d producers cannot be checked against the log", len(f.Entries)))
		}
		return
	}
	if end <= cover && cover > 0 {
		if len(f.Entries) > 0 {
			p.add(finding.New(w, finding.KindNotVerifiable, -1, end,
				"snapshot ends at %d, at or below the first segment on disk (%d): its %d producers refer to deleted data (the broker deletes such snapshots at load)",
				end, cover, len(f.Entries)))
		}
		return
	}
	if len(f.Entries) == 0 && st.Len() > 0 {
		p.add(finding.NewSev(w, finding.KindSnapshotMismatch, finding.Warning, -1, end,
			"snapshot is empty but the log below %d holds %d producers: a broker writes empty snapshots when it loads a log with no snapshot after a clean shutdown "+
				"(e.g. after an upgrade from a pre-0.11 message format); otherwise producer state was lost", end, st.Len()))
		return
	}
	seen := map[int64]bool{}
	partial := cover > 0 // data before the first segment is gone
	for n, e := range f.Entries {
		pos := int64(snapshot.HeaderSize + n*snapshot.EntrySize)
		seen[e.ProducerID] = true
		r := st.Get(e.ProducerID)
		mk := func(kind finding.Kind, sev finding.Severity, format string, args ...any) {
			p.add(finding.WithProducer(finding.NewSev(w, kind, sev, pos, e.LastOffset, format, args...), e.ProducerID))
		}
		if r == nil {
			switch {
			case e.LastOffset >= 0 && e.LastOffset >= end:
				mk(finding.KindSnapshotMismatch, finding.Error, "producer %d: last offset %d is not below the snapshot's end offset %d",
					e.ProducerID, e.LastOffset, end)
			case partial && e.LastOffset < cover:
				mk(finding.KindNotVerifiable, finding.Note,
					"producer %d (last offset %d) is not verifiable: data before log start (the first segment on disk begins at %d)",
					e.ProducerID, e.LastOffset, cover)
			case p.compactedHere():
				// A compacted log is expected to have lost an expired
				// producer's batches before the snapshot forgot it.
				mk(finding.KindSnapshotMismatch, finding.Note,
					"extra producer %d: the snapshot has it (last offset %d) but the log below %d holds no batch of it; "+
						"the log was compacted, which removes an expired producer's batches",
					e.ProducerID, e.LastOffset, end)
			default:
				mk(finding.KindSnapshotMismatch, finding.Error,
					"extra producer %d: the snapshot has it (last offset %d, sequence %d) but the log below %d holds no batch of it",
					e.ProducerID, e.LastOffset, e.LastSequence, end)
			}
			continue
		}
		type field struct {
			name      string
			snap, log int64
		}
		fields := []field{
			{"producerEpoch", int64(e.Epoch), int64(r.Epoch)},
			{"lastSequence", int64(e.LastSequence), int64(r.LastSequence)},
			{"lastOffset", e.LastOffset, r.LastOffset},
			{"offsetDelta", int64(e.OffsetDelta), int64(r.OffsetDelta)},
			{"timestamp", e.Timestamp, r.Timestamp},
			{"coordinatorEpoch", int64(e.CoordinatorEpoch), int64(r.CoordinatorEpoch)},
			{"currentTxnFirstOffset", e.CurrentTxnFirstOffset, r.CurrentTxnFirstOffset},
		}
		for _, fd := range fields {
			if fd.snap == fd.log {
				continue
			}
			// State set by markers or transactions older than the first
			// segment cannot be checked.
			markerState := fd.name == "coordinatorEpoch" && r.Markers == 0
			olderTxn := fd.name == "currentTxnFirstOffset" && fd.snap >= 0 && fd.snap < cover
			if partial && (markerState || olderTxn) {
				mk(finding.KindNotVerifiable, finding.Note, "producer %d: %s %d in the snapshot is not verifiable: data before log start (%d)",
					e.ProducerID, fd.name, fd.snap, cover)
				continue
			}
			mk(finding.KindSnapshotMismatch, finding.Error,
				"producer %d: %s is %d in the snapshot but %d in the log "+
					"(rebuilt from the batches below %d; the producer's last write there is at offset %d)",
				e.ProducerID, fd.name, fd.snap, fd.log, end, r.LastWrite)
		}
	}
	for _, r := range st.Entries() {
		if seen[r.ProducerID] {
			continue
		}
		sev := finding.Warning
		exp := p.c.o.ProducerExpirationMs
		why := fmt.Sprintf("if the broker ran for producer.id.expiration.ms (%d ms) after the producer's last write (timestamp %d) "+
			"it expired the producer and this is expected; otherwise the snapshot lost it",
			exp, r.Timestamp)
		if p.maxTs >= 0 && r.Timestamp >= 0 && p.maxTs-r.Timestamp >= exp {
			sev = finding.Note
			why = fmt.Sprintf("its last write (timestamp %d) is %d ms before the newest timestamp in the log, "+
				"beyond producer.id.expiration.ms (%d ms): the broker expired it",
				r.Timestamp, p.maxTs-r.Timestamp, exp)
		}
		p.add(finding.WithProducer(finding.NewSev(w, finding.KindSnapshotMismatch, sev, -1, r.LastWrite,
			"missing producer %d: the log below %d has its batches (last write at offset %d, epoch %d, last sequence %d) but the snapshot does not; %s",
			r.ProducerID, end, r.LastWrite, r.Epoch, r.LastSequence, why), r.ProducerID))
	}
}

// remoteSnapshotEnd sets the end offset of a remote segment's producer
// snapshot (<start>-<segment id>.snapshot): the broker copies the
// snapshot taken when the segment rolled, at the offset past its last,
// not at the start its name gives. That end is known once the segment's
// .log was read, which a remote dir's name order puts first; a snapshot
// without its .log read before it is a note, not compared. It reports whether f can be
// compared; any other snapshot is left as it is.
func (p *partition) remoteSnapshotEnd(file string, f *snapshot.File) bool {
	n := snapshot.ParseName(path.Base(file))
	if n.SegmentID == "" {
		return true
	}
	for _, r := range []*segRun{p.cur, p.last} {
		if r != nil && snapshot.ParseName(path.Base(r.path)).SegmentID == n.SegmentID && p.prevLast >= 0 {
			f.EndOffset = p.prevLast + 1
			return true
		}
	}
	p.add(finding.New(p.where(file), finding.KindNotVerifiable, -1, n.Offset,
		"remote segment %s's .log was not read before its producer snapshot (absent from the store, or later in the input): "+
			"the snapshot's end offset is unknown, its producers were not compared with the log",
		n.SegmentID))
	return false
}
