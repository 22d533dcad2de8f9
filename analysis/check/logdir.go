package check

import (
	"fmt"
	"slices"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/snapshot"
)

// logDir is the state of one broker log dir's root: its checkpoints and
// state files.
type logDir struct {
	c           *Checker
	key         logDirKey
	checkpoints map[snapshot.Kind]*checkpointFile
	findings    []analysis.AnomalyRow
	// rootFiles counts its files other than .lock: a dir named like a
	// partition dir is taken for a log dir's root by them (bare.go).
	rootFiles int
	// lock and clean: the root holds .lock (a broker has the dir open,
	// or died with it open) and .kafka_cleanshutdown, which the broker
	// writes last when it stops cleanly, after flushing every log and
	// checkpoint: the evidence of a crashed or running copy (crashed.go)
	// and of a clean stop (clean.go).
	lock, clean bool
	// unreached are the partitions its checkpoints name of which a cut
	// archive delivered no entry (cut.go), in the order first named.
	unreached []partName
}

type checkpointFile struct {
	path string
	c    *snapshot.OffsetCheckpoint
}

func (l *logDir) where(file string) finding.Where {
	return finding.Where{Input: l.key.input, Partition: -1, File: file}
}

// file takes a file of the log dir's root.
func (l *logDir) file(ev *scan.FileEvent) {
	e := ev.Entry
	n := e.Name
	l.findings = append(l.findings, ev.Anomalies...)
	if n.Kind != snapshot.KindLock {
		l.rootFiles++
	}
	l.lock = l.lock || n.Kind == snapshot.KindLock && !n.Leftover && n.Suffix == ""
	l.clean = l.clean || n.Kind == snapshot.KindCleanShutdown && !n.Leftover && n.Suffix == ""
	w := l.where(e.Path)
	switch {
	case n.Leftover || n.Suffix != "":
		l.findings = append(l.findings, finding.New(w, finding.KindLeftover, -1, -1,
			"leftover of an atomic rewrite that was never renamed (the broker crashed or was killed while writing it); not in use"))
		if len(ev.Data) > 0 {
			l.findings = append(l.findings, parseOnly(w, n.Kind, ev.Data)...)
		}
	case n.Kind == snapshot.KindBootstrapCheckpoint, n.Kind == snapshot.KindKRaftSnapshot:
		tornIsDamage(l.findings[len(l.findings)-len(ev.Anomalies):])
	case n.Kind == snapshot.KindLog:
		// Batches: the reader's findings are in.
	case ev.Data == nil:
	case n.Kind.IsOffsetCheckpoint():
		c, err := snapshot.ParseOffsetCheckpoint(e.Path, ev.Data)
		l.findings = append(l.findings, finding.FromState(w, n.Kind, err)...)
		if c != nil && err == nil {
			l.checkpoints[n.Kind] = &checkpointFile{path: e.Path, c: c}
		}
	default:
		l.findings = append(l.findings, parseState(w, n.Kind, ev.Data)...)
	}
}

// entry returns the offset a checkpoint of the log dir gives a partition.
func (l *logDir) entry(k snapshot.Kind, topic string, part int32) (int64, bool) {
	cf := l.checkpoints[k]
	if cf == nil {
		return 0, false
	}
	for _, e := range cf.c.Entries {
		if e.Topic == topic && e.Partition == part {
			return e.Offset, true
		}
	}
	return 0, false
}

// offset is entry's offset, -1 when there is none.
func (l *logDir) offset(k snapshot.Kind, topic string, part int32) int64 {
	if o, ok := l.entry(k, topic, part); ok {
		return o
	}
	return -1
}

func (l *logDir) path(k snapshot.Kind) string {
	if cf := l.checkpoints[k]; cf != nil {
		return cf.path
	}
	return ""
}

// checkpointPath names the checkpoint a checkpoint-ahead gap rests on.
func (l *logDir) checkpointPath() string {
	if p := l.path(snapshot.KindReplicationCheckpoint); p != "" {
		return p
	}
	return l.path(snapshot.KindRecoveryPointCheckpoint)
}

// finish compares the offset checkpoints with the partitions' data.
func (l *logDir) finish() {
	type tp struct {
		topic string
		part  int32
	}
	byTP := map[tp]*partition{}
	for _, p := range l.c.order {
		// Only live partition dirs: -delete, -future and -stray dirs are
		// not what the checkpoints describe. A dot in a topic name is
		// common and says nothing.
		if p.key.input == l.key.input && p.part >= 0 && p.dirState == "" && l.c.logDirOfPartition(p) == l {
			byTP[tp{p.topic, p.part}] = p
		}
	}
	kinds := []snapshot.Kind{snapshot.KindRecoveryPointCheckpoint, snapshot.KindReplicationCheckpoint,
		snapshot.KindLogStartCheckpoint, snapshot.KindCleanerCheckpoint}
	what := map[snapshot.Kind]string{
		snapshot.KindRecoveryPointCheckpoint: "recovery point",
		snapshot.KindReplicationCheckpoint:   "high watermark",
		snapshot.KindLogStartCheckpoint:      "log start offset",
		snapshot.KindCleanerCheckpoint:       "cleaner offset",
	}
	for _, k := range kinds {
		cf := l.checkpoints[k]
		if cf == nil {
			continue
		}
		var absent []string
		firstAbsentLine := 0
		for _, e := range cf.c.Entries {
			name := fmt.Sprintf("%s-%d", e.Topic, e.Partition)
			pt, ok := byTP[tp{e.Topic, e.Partition}]
			if !ok && l.c.unselected[l.key][partName{e.Topic, e.Partition}] {
				continue // its dir is here; the topic filter left it out
			}
			if !ok {
				if firstAbsentLine == 0 {
					firstAbsentLine = e.Line
				}
				absent = append(absent, name)
				l.noteUnreached(partName{e.Topic, e.Partition})
				continue
			}
			w := finding.Where{Input: l.key.input, Topic: e.Topic, Partition: e.Partition, File: cf.path}
			mk := func(kind finding.Kind, format string, args ...any) {
				l.findings = append(l.findings, finding.WithLine(finding.New(w, kind, -1, e.Offset, format, args...), e.Line))
			}
			if len(pt.segs) == 0 && len(pt.deleted) > 0 && e.Offset > 0 {
				l.findings = append(l.findings, finding.WithLine(finding.NewSev(w, finding.KindCheckpointStale, finding.Note, -1, e.Offset,
					"%s of %s is %d; the partition dir holds only segments scheduled for deletion: retention removed the log's data", what[k], name, e.Offset), e.Line))
				continue
			}
			why, cut := pt.cutWhy()
			if len(pt.segs) == 0 {
				if e.Offset > 0 && cut {
					// Its .log may have come after the cut.
					l.findings = append(l.findings, finding.WithLine(finding.NewSev(w, finding.KindCheckpointAhead, finding.Note, -1, e.Offset,
						"%s of %s is %d but no .log file of it was read: %s, so its log was not verified (unread)", what[k], name, e.Offset, why), e.Line))
				} else if e.Offset > 0 {
					mk(finding.KindCheckpointAhead, "%s of %s is %d but the partition dir %s: the segments were not copied, or were deleted after the checkpoint",
						what[k], name, e.Offset, pt.noLog())
				}
				continue
			}
			leo, first, firstBase := pt.logEnd(), pt.firstOffset(), pt.sortedSegs()[0].base
			switch {
			case e.Offset > leo && cut:
				l.findings = append(l.findings, finding.WithLine(finding.NewSev(w, finding.KindCheckpointAhead, finding.Note, -1, e.Offset,
					"%s of %s is %d, ahead of the log read, which ends at %d: %s, so the rest of the log was not read (unread, not verified)",
					what[k], name, e.Offset, leo, why), e.Line))
			case e.Offset > leo:
				mk(finding.KindCheckpointAhead, "%s of %s is %d, ahead of the data on disk, which ends at %d: "+
					"the copy was taken while the broker was running (the checkpoint was written after the .log files were copied), or the log lost its tail",
					what[k], name, e.Offset, leo)
			case k == snapshot.KindLogStartCheckpoint && first >= 0 && e.Offset > first:
				mk(finding.KindLogStartAhead, "log start offset of %s is %d, above the first offset on disk (%d): records %d..%d were deleted with DeleteRecords "+
					"or by retention and are no longer readable, though still in the files", name, e.Offset, first, first, e.Offset-1)
			case k == snapshot.KindLogStartCheckpoint && e.Offset < firstBase && pt.remoteHolds(e.Offset, firstBase):
				// Tiered: the log start is remote storage's (remote.go).
			case k == snapshot.KindLogStartCheckpoint && e.Offset < firstBase:
				mk(finding.KindCheckpointStale, "log start offset of %s is %d, below the first segment on disk (%d): "+
					"segments were deleted after the checkpoint was written",
					name, e.Offset, firstBase)
			}
		}
		if len(absent) > 0 {
			slices.Sort(absent)
			list := absent
			if len(list) > 5 {
				list = append(slices.Clone(list[:5]), fmt.Sprintf("… (%d in all)", len(absent)))
			}
			why := "no directory in this log dir (partial copy, or deleted partitions)"
			if l.openAtCut() {
				why = "no directory of theirs was read: the archive ended before them (cut short or damaged), so their logs were not verified (unread)"
			}
			l.findings = append(l.findings, finding.WithLine(finding.New(l.where(cf.path), finding.KindCheckpointStale, -1, -1,
				"%d partitions have a %s here but %s: %v", len(absent), what[k], why, list), firstAbsentLine))
		}
	}
}

// HighWatermark is the replication-offset-checkpoint entry of a partition
// in a log dir of input (-1 when none has one). Valid after Finish.
func (c *Checker) HighWatermark(input int32, topic string, part int32) int64 {
	for _, l := range c.ldOrder {
		if l.key.input != input {
			continue
		}
		if o, ok := l.entry(snapshot.KindReplicationCheckpoint, topic, part); ok {
			return o
		}
	}
	return -1
}

// Checkpoint is a partition's entry in an offset checkpoint of the log dir
// logDir (relative to the input root) of input. Valid after Finish.
func (c *Checker) Checkpoint(kind snapshot.Kind, input int32, logDir, topic string, part int32) (int64, bool) {
	if l := c.logDirs[logDirKey{input, logDir}]; l != nil {
		return l.entry(kind, topic, part)
	}
	return 0, false
}
