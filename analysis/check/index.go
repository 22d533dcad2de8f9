package check

import (
	"fmt"
	"path"
	"slices"
	"sort"

	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/segment"
)

// batchAtPos returns the index of the batch starting at pos, or of the
// batch containing it with false, or -1.
func batchAtPos(bs []placed, pos int64) (int, bool) {
	i := sort.Search(len(bs), func(i int) bool { return bs[i].pos >= pos })
	if i < len(bs) && bs[i].pos == pos {
		return i, true
	}
	if i > 0 && pos < bs[i-1].pos+bs[i-1].size {
		return i - 1, false
	}
	return -1, false
}

// batchWithOffset returns the index of the batch whose offsets include off,
// or -1. Batches are in offset order in a healthy segment; a regression is
// reported elsewhere and may make this miss.
func batchWithOffset(bs []placed, off int64) int {
	i := sort.Search(len(bs), func(i int) bool { return bs[i].last >= off })
	if i < len(bs) && bs[i].base <= off {
		return i
	}
	return -1
}

// checkOffsetIndex checks every .index entry: its position must be a batch
// start, and its offset the last offset of that batch or, for a follower's
// multi-batch append, of a later one (docs/formats/indexes.md).
func (p *partition) checkOffsetIndex(file string, data []byte, s *segRun) {
	x, xs := segment.ParseOffsetIndex(file, data, s.base)
	for _, f := range xs {
		p.add(finding.FromIndex(p.where(file), f))
	}
	s.sum.idx = lastIndexEntry(file, s.base, x)
	p.c.noteIndexEnd(p.key.input, s.path, s.sum.idx)
	bs := s.batches
	at, cut := p.archiveCut(s.sum)
	var past pastCut
	defer p.notePastCut(file, s, at, true, &past)
	for n, e := range x.Entries {
		pos := int64(n * segment.OffsetIndexEntrySize)
		i, start := batchAtPos(bs, int64(e.Position))
		mk := func(format string, args ...any) {
			p.add(finding.New(p.where(file), finding.KindIndexMismatch, pos, e.Offset, format, args...))
		}
		switch {
		case int64(e.Position) >= s.size:
			mk("entry %d points to byte %d, past the end of the .log (%d bytes): the log was truncated after the index was written, or the copy is inconsistent",
				n, e.Position, s.size)
			continue
		case cut && int64(e.Position) >= at:
			past.add(n, pos, e.Offset)
			continue
		case i < 0:
			mk("entry %d points to byte %d, where no batch was read (damaged bytes?)", n, e.Position)
			continue
		case !start:
			mk("entry %d points to byte %d, inside the batch at byte %d (offsets %d..%d), not to a batch start",
				n, e.Position, bs[i].pos, bs[i].base, bs[i].last)
			continue
		}
		if bs[i].last == e.Offset {
			continue
		}
		if j := batchWithOffset(bs[i:], e.Offset); j < 0 || bs[i+j].last != e.Offset {
			mk("entry %d maps offset %d to byte %d, but the batch there ends at offset %d and no later batch ends at %d",
				n, e.Offset, e.Position, bs[i].last, e.Offset)
		}
	}
}

// checkTimeIndex checks every .timeindex entry: its offset must be in a
// batch of the segment whose max timestamp is the entry's timestamp and the
// largest of the segment up to there. Linear in the batches plus entries ×
// log(batches).
func (p *partition) checkTimeIndex(file string, data []byte, s *segRun) {
	x, xs := segment.ParseTimeIndex(file, data, s.base)
	for _, f := range xs {
		p.add(finding.FromIndex(p.where(file), f))
	}
	bs := s.batches
	prefix := make([]int64, len(bs))
	m := int64(-1)
	for i, b := range bs {
		m = max(m, b.maxTs)
		prefix[i] = m
	}
	at, cut := p.archiveCut(s.sum)
	lastRead := s.lastRead()
	var past pastCut
	defer p.notePastCut(file, s, at, false, &past)
	for n, e := range x.Entries {
		pos := int64(n * segment.TimeIndexEntrySize)
		i := batchWithOffset(bs, e.Offset)
		if cut && e.Offset > lastRead {
			past.add(n, pos, e.Offset)
			continue
		}
		if i < 0 {
			p.add(finding.New(p.where(file), finding.KindIndexMismatch, pos, e.Offset,
				"entry %d (timestamp %d) names offset %d, which is in no batch of the segment", n, e.Timestamp, e.Offset))
			continue
		}
		if e.Timestamp != prefix[i] || e.Timestamp != bs[i].maxTs {
			p.add(finding.New(p.where(file), finding.KindIndexMismatch, pos, e.Offset,
				"entry %d has timestamp %d for offset %d, but the batch holding it (byte %d) has max timestamp %d and the largest timestamp of the segment up to it is %d",
				n, e.Timestamp, e.Offset, bs[i].pos, bs[i].maxTs, prefix[i]))
		}
	}
}

// checkTxnIndex compares a segment's .txnindex (if it has one) with the
// ABORT markers the replay found in it.
func (p *partition) checkTxnIndex(s *segRun) {
	indexed := map[int64]bool{}
	full := ""
	if sf := s.txnIndex; sf != nil {
		full = sf.path
		x, xs := segment.ParseTxnIndex(sf.path, sf.data, s.base)
		for _, f := range xs {
			p.add(finding.FromIndex(p.where(sf.path), f))
		}
		at, cut := p.archiveCut(s.sum)
		lastRead := s.lastRead()
		var past pastCut
		defer p.notePastCut(sf.path, s, at, false, &past)
		for n, a := range x.Entries {
			pos := int64(n * segment.TxnIndexEntrySize)
			m, ok := s.markers[a.LastOffset]
			msg := ""
			switch {
			case !ok && cut && a.LastOffset > lastRead:
				// Its marker lies past the cut: checked neither way.
				past.add(n, pos, a.LastOffset)
				continue
			case !ok:
				msg = fmt.Sprintf("entry %d says producer %d's transaction %d..%d was aborted at offset %d, "+
					"but there is no transaction marker at that offset in %s",
					n, a.ProducerID, a.FirstOffset, a.LastOffset, a.LastOffset, path.Base(s.path))
			case m.pid != a.ProducerID:
				msg = fmt.Sprintf("entry %d names producer %d, but the marker at offset %d belongs to producer %d", n, a.ProducerID, a.LastOffset, m.pid)
			case !m.abort:
				msg = fmt.Sprintf("entry %d says producer %d's transaction was aborted at offset %d, but the marker there is a COMMIT: "+
					"read_committed consumers would skip committed records",
					n, a.ProducerID, a.LastOffset)
			case m.txFirst >= 0 && a.FirstOffset != m.txFirst:
				msg = fmt.Sprintf("entry %d gives first offset %d for producer %d's aborted transaction, but its first batch in the log is at offset %d",
					n, a.FirstOffset, a.ProducerID, m.txFirst)
			case m.txFirst < 0 && a.FirstOffset >= p.firstSegBase && a.FirstOffset != a.LastOffset:
				msg = fmt.Sprintf("entry %d gives first offset %d for producer %d's aborted transaction, "+
					"but the log has no open transaction of that producer before the marker at %d",
					n, a.FirstOffset, a.ProducerID, a.LastOffset)
			}
			indexed[a.LastOffset] = true
			if msg != "" {
				f := finding.NewSev(p.where(sf.path), finding.KindTxnIndexMismatch, finding.Error, pos, a.LastOffset, "%s", msg)
				p.add(finding.WithProducer(f, a.ProducerID))
			}
		}
	}
	offs := make([]int64, 0, len(s.markers))
	for off, m := range s.markers {
		if m.abort && m.txFirst >= 0 && !indexed[off] {
			offs = append(offs, off)
		}
	}
	slices.Sort(offs)
	if full == "" && !s.indexed && len(offs) > 0 {
		// A copy with no index file of this segment at all says nothing
		// about the broker's .txnindex.
		p.add(finding.New(p.where(s.path), finding.KindNotVerifiable, -1, offs[0],
			"the copy holds no index file of this segment, "+
				"so whether the broker indexed its %d ABORT marker(s) (the first at offset %d) cannot be checked", len(offs), offs[0]))
		return
	}
	for _, off := range offs {
		m := s.markers[off]
		where := "in " + path.Base(full)
		if full == "" {
			where = "indexed: the segment has no .txnindex"
		}
		p.add(finding.WithProducer(finding.NewSev(p.where(s.path), finding.KindTxnIndexMismatch, finding.Warning, m.pos, off,
			"ABORT marker of producer %d closing a transaction from offset %d is not %s; read_committed consumers of this segment would not skip the aborted records",
			m.pid, m.txFirst, where), m.pid))
	}
}
