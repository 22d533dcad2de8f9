package scan

import (
	"errors"
	"path"
	"slices"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment"
)

// ReadRemote reads a remote store root: one row per remote segment, its
// files grouped by start offset and segment id, and its .log read by the
// segment reader for the offsets it holds. The reader's findings come
// back as the findings of any segment; a name that is no remote segment
// file is a skipped-file note. Nothing is written into the root.
func ReadRemote(input int32, root string) ([]analysis.RemoteStoreSegment, []analysis.AnomalyRow, error) {
	files, others, err := source.ListRemote(root)
	if err != nil {
		return nil, nil, err
	}
	var out []analysis.RemoteStoreSegment
	var found []analysis.AnomalyRow
	at := map[string]int{}
	for i := range files {
		e := &files[i]
		key := e.Path[:len(e.Path)-len(e.File.Suffix)]
		n, ok := at[key]
		if !ok {
			n = len(out)
			at[key] = n
			out = append(out, analysis.RemoteStoreSegment{Input: input, Dir: path.Dir(e.Path), Topic: e.Dir.Topic, Partition: e.Dir.Partition,
				TopicID: e.Dir.TopicID, SegmentID: e.File.SegmentID, StartOffset: e.File.StartOffset, First: -1, Last: -1})
		}
		s := &out[n]
		s.Files = append(s.Files, e.File.Suffix)
		if e.File.Suffix == "log" {
			s.LogFile, s.LogSize = e.Path, e.Size
			found = append(found, readRemoteLog(s, e)...)
		}
	}
	for i := range out {
		slices.SortFunc(out[i].Files, func(a, b string) int { return source.RemoteSuffixRank(a) - source.RemoteSuffixRank(b) })
	}
	for _, o := range others {
		w := finding.Where{Input: input, Partition: -1, File: o}
		found = append(found, finding.NewSev(w, finding.KindSkippedFile, finding.Note, -1, -1, "not a remote segment file of Kafka's LocalTieredStorage: not read"))
	}
	return out, found, nil
}

// readRemoteLog reads the batches of a remote segment's .log: the first
// and last offsets of its intact batches, and the reader's findings.
func readRemoteLog(s *analysis.RemoteStoreSegment, e *source.RemoteEntry) []analysis.AnomalyRow {
	w := finding.Where{Input: s.Input, Topic: s.Topic, Partition: s.Partition, File: e.Path}
	f, err := e.Open()
	if err != nil {
		s.Damaged++
		return []analysis.AnomalyRow{finding.New(w, finding.KindIOError, -1, -1, "%v", err)}
	}
	defer f.Close()
	r := segment.NewReader(f, segment.Options{Path: e.Path, Size: e.Size})
	defer r.Close()
	var out []analysis.AnomalyRow
	for b, err := range r.All() {
		var ce *segment.CorruptionError
		switch {
		case errors.As(err, &ce):
			s.Damaged++
			out = append(out, finding.FromCorruption(w, ce))
		case err != nil:
			s.Damaged++
			out = append(out, finding.New(w, finding.KindIOError, -1, -1, "%v", err))
		default:
			if s.First < 0 {
				s.First = b.BaseOffset
			}
			s.Last = max(s.Last, b.LastOffset())
		}
	}
	return out
}
