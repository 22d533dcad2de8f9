package scan

import (
	"path"
	"slices"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// The files of a remote store root (Kafka's LocalTieredStorage layout)
// are scanned as a log dir's are: a remote partition dir is a partition
// dir of its topic and partition, and each remote segment's .log,
// indexes and producer snapshot are read by the same readers, with the
// same findings. What the store holds of each remote segment is then
// told from the scan's file events, in a remote root given as an input
// as in one inside a dir or an archive.

// RemoteStore gathers the remote segments the scan's file events show.
type RemoteStore struct {
	segs []analysis.RemoteStoreSegment
	at   map[remoteKey]int
	// The intact run the segment whose batches are read starts with: a
	// file's batches all come before its file event.
	runIn     int32
	runSeg    string
	runRemote bool
	runTo     int64 // last offset of the intact run, -1 for none
	runBroken bool  // a damaged batch or a gap ended the run
}

type remoteKey struct {
	input int32
	dir   string
	id    string
}

// NewRemoteStore starts an empty store.
func NewRemoteStore() *RemoteStore { return &RemoteStore{at: map[remoteKey]int{}, runIn: -1} }

// Batches takes the scan's batch rows: of a remote segment's .log, the run
// of intact batches it starts with, without a gap between them.
func (st *RemoteStore) Batches(rows []analysis.BatchRow) {
	for i := range rows {
		r := &rows[i]
		if r.Input != st.runIn || r.Segment != st.runSeg {
			st.runIn, st.runSeg, st.runTo, st.runBroken = r.Input, r.Segment, -1, false
			_, st.runRemote = source.ParseRemoteFile(path.Base(r.Segment))
		}
		if !st.runRemote || st.runBroken {
			continue
		}
		switch {
		case !r.CRCValid, st.runTo >= 0 && r.BaseOffset != st.runTo+1:
			st.runBroken = true
		default:
			st.runTo = r.LastOffset
		}
	}
}

// File takes a scan's file event: a file of a remote partition dir named
// like a remote segment's joins that segment's row, and a .log gives it
// the offsets of its batches and counts its findings of damage.
func (st *RemoteStore) File(ev *FileEvent) {
	dir, base := path.Split(ev.Entry.Path)
	dir = path.Clean(dir)
	rd, ok := source.ParseRemoteDir(path.Base(dir))
	if !ok {
		return
	}
	rf, ok := source.ParseRemoteFile(base)
	if !ok {
		return
	}
	k := remoteKey{int32(ev.Entry.Input), dir, rf.SegmentID}
	n, ok := st.at[k]
	if !ok {
		n = len(st.segs)
		st.at[k] = n
		st.segs = append(st.segs, analysis.RemoteStoreSegment{Input: k.input, Dir: dir, Topic: rd.Topic, Partition: rd.Partition,
			TopicID: rd.TopicID, SegmentID: rf.SegmentID, StartOffset: rf.StartOffset, First: -1, Last: -1, IntactTo: -1})
	}
	s := &st.segs[n]
	s.Files = append(s.Files, rf.Suffix)
	if rf.Suffix != "log" {
		return
	}
	s.LogFile, s.LogSize = ev.Entry.Path, ev.Row.Size
	if ev.Row.FirstOffset != nil && ev.Row.LastOffset != nil {
		s.First, s.Last = *ev.Row.FirstOffset, *ev.Row.LastOffset
	}
	s.IntactTo = -1
	if st.runIn == k.input && st.runSeg == ev.Entry.Path && st.runRemote && s.First == rf.StartOffset {
		s.IntactTo = st.runTo
	}
	if ev.Row.Status == statusUnreadable {
		s.Damaged++
	}
	for _, a := range ev.Anomalies {
		if a.Severity != finding.Note {
			s.Damaged++
		}
	}
	for k, n := range ev.Omitted {
		if k.Severity != finding.Note {
			s.Damaged += int(n)
		}
	}
}

// Segments returns the remote segments seen, in the order their first
// file came, each with its files in source.RemoteSuffixes order.
func (st *RemoteStore) Segments() []analysis.RemoteStoreSegment {
	for i := range st.segs {
		slices.SortFunc(st.segs[i].Files, func(a, b string) int { return source.RemoteSuffixRank(a) - source.RemoteSuffixRank(b) })
	}
	return st.segs
}

// RemoteOthers lists the names in a remote store root given as an input
// that are no remote segment file: the scan does not read them, and each
// is a skipped-file note rather than passed over.
func RemoteOthers(input int32, root string) ([]analysis.AnomalyRow, error) {
	_, others, err := source.ListRemote(root)
	if err != nil {
		return nil, err
	}
	var found []analysis.AnomalyRow
	for _, o := range others {
		w := finding.Where{Input: input, Partition: -1, File: o}
		found = append(found, finding.NewSev(w, finding.KindSkippedFile, finding.Note, -1, -1, "not a remote segment file of Kafka's LocalTieredStorage: not read"))
	}
	return found, nil
}
