package bundle

import (
	"context"
	"io"
	"path"
	"slices"

	"github.com/ksleuth/ksleuth/analysis/records"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/snapshot"
)

// segmentFiles are the kinds of file that belong to one segment, by its
// base offset: left out with it when an offset range leaves it out.
var segmentFiles = map[snapshot.Kind]bool{snapshot.KindLog: true, snapshot.KindIndex: true, snapshot.KindTimeIndex: true,
	snapshot.KindTxnIndex: true}

// selection keeps the segments of an input whose offsets can meet a
// range: a live segment holds the offsets from its base offset up to the
// next live segment's of its dir (the last one, every offset after its
// base). Segments renamed .deleted, .cleaned or .swap, leftovers and
// every other file are kept: they are evidence of what the broker did.
type selection struct {
	r    records.Range
	next map[string][]int64 // a partition dir's live segments' base offsets, in order
}

// newSelection lists the live segments of files for range r.
func newSelection(r records.Range, files []*source.Entry) *selection {
	s := &selection{r: r, next: map[string][]int64{}}
	for _, e := range files {
		if e.Name.Kind == snapshot.KindLog && e.Name.Suffix == "" && !e.Name.Leftover && e.Partition != nil {
			d := path.Dir(e.Path)
			s.next[d] = append(s.next[d], e.Name.Offset)
		}
	}
	for _, offs := range s.next {
		slices.Sort(offs)
	}
	return s
}

// keeps reports whether the file e goes into the bundle.
func (s *selection) keeps(e *source.Entry) bool {
	if s == nil || !segmentFiles[e.Name.Kind] || e.Name.Suffix != "" || e.Name.Leftover || e.Partition == nil {
		return true
	}
	offs := s.next[path.Dir(e.Path)]
	i, found := slices.BinarySearch(offs, e.Name.Offset)
	if !found {
		return true // an index without its segment: evidence too
	}
	last := int64(1<<63 - 1)
	if i+1 < len(offs) {
		last = offs[i+1] - 1
	}
	return e.Name.Offset <= s.r.To && last >= s.r.From
}

// archiveFiles lists an archive input's files, reading it once through:
// which segments a range keeps depends on the segments after them.
func archiveFiles(ctx context.Context, in *source.Input, opts source.Options) ([]*source.Entry, error) {
	var files []*source.Entry
	err := in.Stream(ctx, opts, func(e *source.Entry, _ io.Reader) error {
		files = append(files, e)
		return nil
	})
	return files, err
}
