package bundle

import (
	"context"
	"fmt"
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
//
// A time window leaves out, in the same way, the live segments that hold
// no record of it (see holdsWindow).
type selection struct {
	r    *records.Range
	next map[string][]int64 // a partition dir's live segments' base offsets, in order
	// outside are the live segments, by segKey, that hold no record of
	// the time window.
	outside map[string]bool
}

// newSelection lists the live segments of files for range r (nil: every
// offset); outside are the segments left out by a time window.
func newSelection(r *records.Range, files []*source.Entry, outside map[string]bool) *selection {
	s := &selection{r: r, next: map[string][]int64{}, outside: outside}
	for _, e := range files {
		if live(e) {
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
	if s.outside[segKey(e)] {
		return false
	}
	if s.r == nil {
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

// live reports whether e is a live segment of a partition dir: the
// segments a selection may leave out.
func live(e *source.Entry) bool {
	return e.Name.Kind == snapshot.KindLog && e.Name.Suffix == "" && !e.Name.Leftover && e.Partition != nil
}

// archiveFiles lists an archive input's files, reading it once through:
// which segments a range keeps depends on the segments after them. Under
// a time window it reads the live segments too, and returns those that
// hold no record of it.
func archiveFiles(ctx context.Context, in *source.Input, opts source.Options, w records.Window) ([]*source.Entry, map[string]bool, error) {
	var files []*source.Entry
	outside := map[string]bool{}
	err := in.Stream(ctx, opts, func(e *source.Entry, r io.Reader) error {
		files = append(files, e)
		if w.IsAlways() || !live(e) || e.Skipped != "" || e.Err != nil {
			return nil
		}
		holds, err := holdsWindow(r, e.Size, w)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Path, err)
		}
		if !holds {
			outside[segKey(e)] = true
		}
		return nil
	})
	return files, outside, err
}

// outsideWindow returns the live segments of a dir input's files, by
// segKey, that hold no record of w.
func outsideWindow(ctx context.Context, files []*source.Entry, w records.Window) (map[string]bool, error) {
	outside := map[string]bool{}
	if w.IsAlways() {
		return outside, nil
	}
	for _, e := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !live(e) || e.Skipped != "" || e.Err != nil {
			continue
		}
		holds, err := openHolds(e, w)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Path, err)
		}
		if !holds {
			outside[segKey(e)] = true
		}
	}
	return outside, nil
}

func openHolds(e *source.Entry, w records.Window) (bool, error) {
	f, err := e.Open()
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	return holdsWindow(f, fi.Size(), w)
}
