package check

import (
	"fmt"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
)

// A remote store root given as an input shows whether the remote copies
// __remote_log_metadata names are there and whole. Once one is read, a
// remote segment holds its offsets only when its .log is in the store and
// its intact batches span the segment's offsets; the metadata alone no
// longer suffices.

// remoteStore is what the remote store roots of a run hold.
type remoteStore struct {
	bySegment map[string]*analysis.RemoteStoreSegment
	segs      []analysis.RemoteStoreSegment
	input     int32 // the first root's input, for a segment found in none
}

// AddRemoteStore adds the segments read from the remote store roots; it
// comes before AddRemoteSegments, which judges the metadata by them.
func (c *Checker) AddRemoteStore(segs []analysis.RemoteStoreSegment, input int32) {
	st := &remoteStore{bySegment: map[string]*analysis.RemoteStoreSegment{}, segs: segs, input: input}
	for i := range st.segs {
		st.bySegment[st.segs[i].SegmentID] = &st.segs[i]
	}
	c.store = st
}

// storeHolds reports up to which offset the remote store holds r's
// offsets from its start, adding a finding when it does not hold them
// all: r.EndOffset when the segment is whole or no store was read, the end
// of the intact run its .log starts with when it is damaged (a segment cut
// short still holds what comes before the cut), ok false when it holds
// none.
func (c *Checker) storeHolds(r *analysis.RemoteSegmentRow) (last int64, ok bool) {
	if c.store == nil {
		return r.EndOffset, true
	}
	s := c.store.bySegment[r.SegmentID]
	if s == nil || !s.HasLog() {
		in, dir := c.store.input, fmt.Sprintf("%s-%d-%s", r.Topic, r.Partition, r.TopicID)
		if d := c.store.sibling(r, s); d != nil {
			in, dir = d.Input, d.Dir
		}
		file := fmt.Sprintf("%s/%020d-%s.log", dir, r.StartOffset, r.SegmentID)
		w := finding.Where{Input: in, Topic: r.Topic, Partition: r.Partition, File: file}
		c.findings = append(c.findings, finding.New(w, finding.KindRemoteSegmentMissing, -1, r.StartOffset,
			"remote segment %s (offsets %d..%d, copied by broker %d) is held per __remote_log_metadata, but the remote store has no .log of it",
			r.SegmentID, r.StartOffset, r.EndOffset, r.Broker))
		return 0, false
	}
	if s.Damaged == 0 && s.First >= 0 && s.First <= r.StartOffset && s.Last >= r.EndOffset {
		return r.EndOffset, true
	}
	w := finding.Where{Input: s.Input, Topic: r.Topic, Partition: r.Partition, File: s.LogFile}
	held := "no intact batch"
	if s.First >= 0 {
		held = fmt.Sprintf("batches for offsets %d..%d", s.First, s.Last)
	}
	last = min(s.IntactTo, r.EndOffset)
	if s.First != r.StartOffset || last < r.StartOffset {
		c.findings = append(c.findings, finding.New(w, finding.KindRemoteSegmentDamaged, -1, r.StartOffset,
			"remote segment %s should hold offsets %d..%d per __remote_log_metadata; its .log has %s and %d damaged stretch(es): "+
				"those offsets are not held remotely", r.SegmentID, r.StartOffset, r.EndOffset, held, s.Damaged))
		return 0, false
	}
	c.findings = append(c.findings, finding.New(w, finding.KindRemoteSegmentDamaged, -1, last+1,
		"remote segment %s should hold offsets %d..%d per __remote_log_metadata; its .log has %s, its intact batches from "+
			"the start %d..%d: offsets %d..%d are not held remotely",
		r.SegmentID, r.StartOffset, r.EndOffset, held, r.StartOffset, last, last+1, r.EndOffset))
	return last, true
}

// remoteOrphans reports the store's segments that no held metadata row
// names; said only when the metadata of the segment's partition was read,
// since without it every remote segment would look unknown.
func (c *Checker) remoteOrphans(rows []analysis.RemoteSegmentRow) {
	if c.store == nil {
		return
	}
	known := map[string]*analysis.RemoteSegmentRow{}
	parts := map[string]bool{}
	for i := range rows {
		known[rows[i].SegmentID] = &rows[i]
		parts[rows[i].TopicID] = true
	}
	for _, s := range c.store.segs {
		r := known[s.SegmentID]
		if (r != nil && r.Held) || !parts[s.TopicID] {
			continue
		}
		why := "__remote_log_metadata does not name it"
		if r != nil {
			why = "__remote_log_metadata names it in state " + r.State
		}
		file := s.LogFile
		if file == "" {
			file = fmt.Sprintf("%s/%020d-%s.%s", s.Dir, s.StartOffset, s.SegmentID, s.Files[0])
		}
		w := finding.Where{Input: s.Input, Topic: s.Topic, Partition: s.Partition, File: file}
		c.findings = append(c.findings, finding.New(w, finding.KindRemoteOrphan, -1, s.StartOffset,
			"remote segment %s (files: %s) is in the remote store, but %s: no broker reads it", s.SegmentID, strings.Join(s.Files, ","), why))
	}
}

// sibling finds a store segment in r's partition dir, for the path of a
// file that is not there: s itself when its other files are.
func (st *remoteStore) sibling(r *analysis.RemoteSegmentRow, s *analysis.RemoteStoreSegment) *analysis.RemoteStoreSegment {
	if s != nil {
		return s
	}
	for i := range st.segs {
		if st.segs[i].TopicID == r.TopicID && st.segs[i].Partition == r.Partition {
			return &st.segs[i]
		}
	}
	return nil
}
