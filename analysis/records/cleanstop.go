package records

import (
	"io"

	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/snapshot"
)

// maxCheckpoint bounds what is read of a recovery-point checkpoint: a
// line per partition of the log dir.
const maxCheckpoint = 64 << 20

// cleanStops are the facts of each log dir of a listed input that grade
// a torn active segment (finding.CleanStop): whether it holds
// .kafka_cleanshutdown, and its recovery-point checkpoint, read when a
// partition dir of it is first asked about.
type cleanStops struct {
	clean  map[string]bool
	points map[string]*source.Entry
	read   map[string]*snapshot.OffsetCheckpoint
}

func newCleanStops(entries []*source.Entry) *cleanStops {
	s := &cleanStops{clean: map[string]bool{}, points: map[string]*source.Entry{}, read: map[string]*snapshot.OffsetCheckpoint{}}
	for _, e := range entries {
		if e.Partition != nil || e.Name.Leftover || e.Name.Suffix != "" || e.Skipped != "" || e.Err != nil {
			continue
		}
		switch e.Name.Kind {
		case snapshot.KindCleanShutdown:
			s.clean[e.LogDir] = true
		case snapshot.KindRecoveryPointCheckpoint:
			s.points[e.LogDir] = e
		}
	}
	return s
}

// of is what the log dir of seg, a live segment, says of its partition's
// stop.
func (s *cleanStops) of(seg *source.Entry) finding.CleanStop {
	if seg.Partition == nil || !s.clean[seg.LogDir] {
		return finding.CleanStop{}
	}
	cs := finding.CleanStop{Clean: true}
	c, ok := s.read[seg.LogDir]
	if !ok {
		c = readCheckpoint(s.points[seg.LogDir])
		s.read[seg.LogDir] = c
	}
	if c == nil {
		return cs
	}
	for _, e := range c.Entries {
		if e.Topic == seg.Partition.Topic && e.Partition == seg.Partition.Partition {
			cs.RecoveryPoint, cs.HasPoint = e.Offset, true
			break
		}
	}
	return cs
}

// readCheckpoint reads the entries of a recovery-point checkpoint; nil
// when there is none or it cannot be opened (verify reports why).
func readCheckpoint(e *source.Entry) *snapshot.OffsetCheckpoint {
	if e == nil {
		return nil
	}
	f, err := e.Open()
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCheckpoint))
	if err != nil {
		return nil
	}
	c, _ := snapshot.ParseOffsetCheckpoint(e.Path, data)
	return c
}
