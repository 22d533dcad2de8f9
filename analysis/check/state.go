package check

import (
	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

// parseOnly parses any file that is not a segment on its own and returns
// its findings: index files without their log's batches, snapshots, and
// the text state files.
func parseOnly(w finding.Where, k snapshot.Kind, data []byte) []analysis.AnomalyRow {
	var xs []*segment.IndexFinding
	switch k {
	case snapshot.KindIndex:
		_, xs = segment.ParseOffsetIndex(w.File, data, -1)
	case snapshot.KindTimeIndex:
		_, xs = segment.ParseTimeIndex(w.File, data, -1)
	case snapshot.KindTxnIndex:
		_, xs = segment.ParseTxnIndex(w.File, data, -1)
	case snapshot.KindSnapshot:
		_, err := snapshot.ParseNamed(w.File, data)
		return finding.FromState(w, k, err)
	default:
		return parseState(w, k, data)
	}
	out := make([]analysis.AnomalyRow, 0, len(xs))
	for _, x := range xs {
		out = append(out, finding.FromIndex(w, x))
	}
	return out
}

// parseState parses a text state file (checkpoints, partition.metadata,
// meta.properties, quorum-state, .kafka_cleanshutdown) and returns what is
// wrong with it, and its notes.
func parseState(w finding.Where, k snapshot.Kind, data []byte) []analysis.AnomalyRow {
	var err error
	var notes []string
	switch {
	case k.IsOffsetCheckpoint():
		_, err = snapshot.ParseOffsetCheckpoint(w.File, data)
	case k == snapshot.KindLeaderEpochCheckpoint:
		_, err = snapshot.ParseLeaderEpochCheckpoint(w.File, data)
	case k == snapshot.KindPartitionMetadata:
		var m *snapshot.PartitionMetadata
		if m, err = snapshot.ParsePartitionMetadata(w.File, data); m != nil {
			notes = m.Notes
		}
	case k == snapshot.KindMetaProperties:
		var m *snapshot.MetaProperties
		if m, err = snapshot.ParseMetaProperties(w.File, data); m != nil {
			notes = m.Notes
		}
	case k == snapshot.KindCleanShutdown:
		_, err = snapshot.ParseCleanShutdown(w.File, data)
	case k == snapshot.KindQuorumState:
		_, err = snapshot.ParseQuorumState(w.File, data)
	}
	out := finding.FromState(w, k, err)
	for _, n := range notes {
		out = append(out, finding.New(w, finding.KindStateNote, -1, -1, "%s", n))
	}
	return out
}
