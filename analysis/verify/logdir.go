package verify

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sync"

	"github.com/ksleuth/ksleuth/analysis/pstate"
	"github.com/ksleuth/ksleuth/snapshot"
)

// VerifyLogDir verifies a broker log dir: every partition dir in it (see
// VerifyPartition), its state files, and the offset checkpoints
// (recovery point, high watermark, log start, cleaner) against the data.
func VerifyLogDir(fsys fs.FS, root string, o Options) (*Report, error) {
	o = o.withDefaults()
	ents, err := fs.ReadDir(fsys, root)
	if err != nil {
		return nil, err
	}
	top := &partitionRun{fsys: fsys, dir: root, o: o, caps: map[[2]string]int{}}
	var dirs []string
	checkpoints := map[snapshot.Kind]*snapshot.OffsetCheckpoint{}
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() {
			if IsPartitionDirName(name) {
				dirs = append(dirs, name)
			}
			continue
		}
		full := path.Join(root, name)
		n := snapshot.ParseName(name)
		if n.Kind == snapshot.KindUnknown {
			continue
		}
		top.rep.Stats.Files++
		if n.Leftover || n.Suffix != "" {
			top.leftover(full, n)
			continue
		}
		if n.Kind.IsOffsetCheckpoint() {
			data, err := fs.ReadFile(fsys, full)
			if err != nil {
				return nil, err
			}
			c, perr := snapshot.ParseOffsetCheckpoint(full, data)
			for _, f := range FromStateError(full, n.Kind, perr) {
				top.add(f)
			}
			checkpoints[n.Kind] = c
			continue
		}
		if err := top.stateFile(full, n.Kind); err != nil {
			return nil, err
		}
	}

	// Partitions, in parallel, merged back in name order.
	reps := make([]*Report, len(dirs))
	errs := make([]error, len(dirs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, o.Jobs)
	for i, d := range dirs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			reps[i], errs[i] = VerifyPartition(fsys, path.Join(root, d), o)
		}()
	}
	wg.Wait()
	rep := &top.rep
	for i := range dirs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		rep.merge(reps[i])
	}
	top.checkCheckpoints(checkpoints, rep.Partitions)
	top.flushCaps()
	rep.sortFindings()
	return rep, nil
}

// checkCheckpoints compares the offset checkpoints with the partitions'
// data.
func (p *partitionRun) checkCheckpoints(cps map[snapshot.Kind]*snapshot.OffsetCheckpoint, parts []Partition) {
	type tp struct {
		topic string
		part  int32
	}
	byTP := map[tp]Partition{}
	for _, pt := range parts {
		if pt.Partition >= 0 && path.Ext(path.Base(pt.Dir)) == "" {
			byTP[tp{pt.Topic, pt.Partition}] = pt
		}
	}
	kinds := []snapshot.Kind{snapshot.KindRecoveryPointCheckpoint, snapshot.KindReplicationCheckpoint,
		snapshot.KindLogStartCheckpoint, snapshot.KindCleanerCheckpoint}
	for _, k := range kinds {
		c := cps[k]
		if c == nil {
			continue
		}
		what := map[snapshot.Kind]string{
			snapshot.KindRecoveryPointCheckpoint: "recovery point",
			snapshot.KindReplicationCheckpoint:   "high watermark",
			snapshot.KindLogStartCheckpoint:      "log start offset",
			snapshot.KindCleanerCheckpoint:       "cleaner offset",
		}[k]
		var absent []string
		firstAbsentLine := 0
		for _, e := range c.Entries {
			pt, ok := byTP[tp{e.Topic, e.Partition}]
			if !ok {
				if firstAbsentLine == 0 {
					firstAbsentLine = e.Line
				}
				absent = append(absent, fmt.Sprintf("%s-%d", e.Topic, e.Partition))
				continue
			}
			mk := func(kind, sev, format string, args ...any) {
				f := newFinding(kind, sev, c.Path, -1, e.Offset, format, args...)
				f.Line = e.Line
				p.add(f)
			}
			name := fmt.Sprintf("%s-%d", e.Topic, e.Partition)
			if pt.Segments == 0 {
				if e.Offset > 0 {
					mk(KindCheckpointAhead, SevWarning, "%s of %s is %d but the partition dir holds no .log file: the segments were not copied, or were deleted after the checkpoint",
						what, name, e.Offset)
				}
				continue
			}
			leo := pt.LogEndOffset
			switch {
			case e.Offset > leo:
				mk(KindCheckpointAhead, SevWarning, "%s of %s is %d, ahead of the data on disk, which ends at %d: "+
					"the copy was taken while the broker was running (the checkpoint was written after the .log files were copied), or the log lost its tail",
					what, name, e.Offset, leo)
			case k == snapshot.KindLogStartCheckpoint && pt.FirstOffset >= 0 && e.Offset > pt.FirstOffset:
				mk(KindLogStartAhead, SevNote, "log start offset of %s is %d, above the first offset on disk (%d): records %d..%d were deleted with DeleteRecords "+
					"or by retention and are no longer readable, though still in the files", name, e.Offset, pt.FirstOffset, pt.FirstOffset, e.Offset-1)
			case k == snapshot.KindLogStartCheckpoint && e.Offset < pt.FirstSegmentBase:
				mk(KindCheckpointStale, SevNote, "log start offset of %s is %d, below the first segment on disk (%d): segments were deleted after the checkpoint was written",
					name, e.Offset, pt.FirstSegmentBase)
			}
		}
		if len(absent) > 0 {
			slices.Sort(absent)
			list := absent
			if len(list) > 5 {
				list = append(slices.Clone(list[:5]), fmt.Sprintf("… (%d in all)", len(absent)))
			}
			f := newFinding(KindCheckpointStale, SevNote, c.Path, -1, -1,
				"%d partitions have a %s here but no directory in this log dir (partial copy, or deleted partitions): %v", len(absent), what, list)
			f.Line = firstAbsentLine
			p.add(f)
		}
	}
}

// Verify verifies one target found by Discover.
func Verify(fsys fs.FS, t Target, o Options) (*Report, error) {
	switch t.Kind {
	case TargetLogDir:
		return VerifyLogDir(fsys, t.Path, o)
	case TargetPartition:
		return VerifyPartition(fsys, t.Path, o)
	}
	return VerifyFile(fsys, t.Path, o)
}

// VerifyFile verifies a single file on its own: a segment's framing, CRCs
// and offsets (and its name against its first batch), any other file's
// syntax, and an index file against the .log beside it when there is one.
// Snapshot-versus-log and checkpoint checks need the partition or log dir.
func VerifyFile(fsys fs.FS, name string, o Options) (*Report, error) {
	o = o.withDefaults()
	dir, base := path.Split(name)
	dir = path.Clean(dir)
	p := &partitionRun{fsys: fsys, dir: dir, o: o, caps: map[[2]string]int{}, prevLast: -1, maxTs: -1}
	p.st = pstate.New()
	n := snapshot.ParseName(base)
	p.rep.Stats.Files++
	if _, err := fs.Stat(fsys, name); err != nil {
		return nil, err
	}
	switch {
	case n.Leftover || n.Suffix != "":
		p.leftover(name, n)
	case n.Kind == snapshot.KindLog, n.Kind == snapshot.KindIndex, n.Kind == snapshot.KindTimeIndex, n.Kind == snapshot.KindTxnIndex:
		s := &segFiles{base: n.Offset, log: fmt.Sprintf("%020d.log", n.Offset)}
		logFull := path.Join(dir, s.log)
		if _, err := fs.Stat(fsys, logFull); err != nil {
			if n.Kind == snapshot.KindLog {
				return nil, err
			}
			data, err := fs.ReadFile(fsys, name)
			if err != nil {
				return nil, err
			}
			for _, f := range parseOnly(name, n.Kind, data) {
				p.add(f)
			}
			break
		}
		switch n.Kind {
		case snapshot.KindIndex:
			s.index = base
		case snapshot.KindTimeIndex:
			s.tindex = base
		case snapshot.KindTxnIndex:
			s.txidx = base
		}
		if n.Kind != snapshot.KindTxnIndex {
			p.skipTxn = true
		}
		p.coverFrom = n.Offset
		if _, err := p.segment(s); err != nil {
			return nil, err
		}
		p.rep.Stats.Segments++
		if n.Kind != snapshot.KindLog {
			p.rep.Stats.Files++ // the .log read beside it
		}
	case n.Kind == snapshot.KindKRaftSnapshot, n.Kind == snapshot.KindBootstrapCheckpoint:
		if err := p.frameOnly(name); err != nil {
			return nil, err
		}
	case n.Kind == snapshot.KindUnknown:
		return nil, fmt.Errorf("%s: not a Kafka log-dir file by its name", name)
	default:
		if err := p.stateFile(name, n.Kind); err != nil {
			return nil, err
		}
	}
	p.flushCaps()
	p.rep.sortFindings()
	return &p.rep, nil
}
