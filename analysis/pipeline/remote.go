package pipeline

import (
	"fmt"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/check"
	"github.com/ksleuth/ksleuth/analysis/cluster"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// remoteStores is what the remote store roots among the inputs hold.
type remoteStores struct {
	segs  []analysis.RemoteStoreSegment
	found []analysis.AnomalyRow
	read  bool // some input was a remote store root
}

// readRemote reads the remote store roots among the inputs, their
// segments and the findings of reading them, and hands the segments to
// the checker, which judges the remote metadata by them.
func readRemote(inputs []*source.Input, chk *check.Checker) (*remoteStores, error) {
	st := &remoteStores{}
	first := int32(-1)
	for _, in := range inputs {
		if in.Kind != source.Remote {
			continue
		}
		s, f, err := scan.ReadRemote(int32(in.Index), in.Abs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.Path, err)
		}
		if first < 0 {
			first = int32(in.Index)
		}
		st.segs = append(st.segs, s...)
		st.found = append(st.found, f...)
	}
	if first < 0 {
		return st, nil
	}
	st.read = true
	chk.AddRemoteStore(st.segs, first)
	return st, nil
}

// match fills the remote segments' files_present and size_match when a
// remote store root was read.
func (st *remoteStores) match(rows []analysis.RemoteSegmentRow) {
	if st.read {
		cluster.MatchStore(rows, st.segs)
	}
}
