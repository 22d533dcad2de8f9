package pipeline

import (
	"fmt"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/check"
	"github.com/ksleuth/ksleuth/analysis/cluster"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// remoteStores is what the remote store roots among the inputs hold: the
// remote segments the scan read (a root given as an input, or inside a
// dir or an archive), and the names in a root that are no segment file.
type remoteStores struct {
	scanned *scan.RemoteStore
	segs    []analysis.RemoteStoreSegment
	found   []analysis.AnomalyRow
	read    bool // some remote store was read
	// meta are the remote segments of __remote_log_metadata read on their
	// own (readMetadata), for a run without the attribution.
	meta []analysis.RemoteSegmentRow
}

func newRemoteStores() *remoteStores { return &remoteStores{scanned: scan.NewRemoteStore()} }

// finish takes the remote segments the scan saw and the other names of
// the remote roots among the inputs, and hands the segments to the
// checker, which judges the remote metadata by them (and then the
// metadata readMetadata read, if any).
func (st *remoteStores) finish(inputs []*source.Input, chk *check.Checker) error {
	st.segs = st.scanned.Segments()
	first := int32(-1)
	if len(st.segs) > 0 {
		first = st.segs[0].Input
	}
	for _, in := range inputs {
		if in.Kind != source.Remote {
			continue
		}
		f, err := scan.RemoteOthers(int32(in.Index), in.Abs)
		if err != nil {
			return fmt.Errorf("%s: %w", in.Path, err)
		}
		if first < 0 {
			first = int32(in.Index)
		}
		st.found = append(st.found, f...)
	}
	if first >= 0 {
		st.read = true
		chk.AddRemoteStore(st.segs, first)
	}
	// After the store: the checker judges the metadata by its files.
	if st.meta != nil {
		chk.AddRemoteSegments(st.meta)
	}
	return nil
}

// match fills the remote segments' files_present and size_match when a
// remote store root was read.
func (st *remoteStores) match(rows []analysis.RemoteSegmentRow) {
	if st.read {
		cluster.MatchStore(rows, st.segs)
	}
}
