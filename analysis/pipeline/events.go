package pipeline

import (
	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/brokerlog"
	"github.com/ksleuth/ksleuth/analysis/cluster"
)

// EventBearsOnLoss reports whether a cluster event may explain records
// that are lost or differ between copies, so that the text leads with
// it: an unclean election, a leader elected from the eligible leader
// replicas (the metadata log's), a log truncated or invalid messages
// found (a broker log's).
func EventBearsOnLoss(e *analysis.ClusterEventRow) bool {
	switch e.Kind {
	case brokerlog.KindTruncation, brokerlog.KindInvalidMessages:
		return true
	}
	return cluster.BearsOnLoss(e)
}
