package check_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/klauspost/compress/zstd"
	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/check"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/segment/segtest"
	"github.com/ksleuth/ksleuth/snapshot"
)

// multiSegment generates a log dir whose partitions span several small
// segments, with the indexes, snapshots and checkpoints a broker writes,
// and returns it with its manifest.
func multiSegment(t *testing.T) (fstest.MapFS, *segtest.Manifest) {
	t.Helper()
	dir := t.TempDir()
	m, err := segtest.GenerateLogDir(dir, 7, segtest.GenOptions{SegmentBytes: 1200})
	if err != nil {
		t.Fatal(err)
	}
	if err := segtest.WriteState(dir, m, segtest.StateOptions{IndexIntervalBytes: 256}); err != nil {
		t.Fatal(err)
	}
	mfs, err := segtest.LoadFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	return mfs, m
}

// dropSegment deletes a segment and its index files from mfs, keeping
// the producer snapshot named after it.
func dropSegment(mfs fstest.MapFS, file string) {
	prefix := strings.TrimSuffix(file, ".log")
	for name := range mfs {
		if strings.HasPrefix(name, prefix+".") && !strings.HasSuffix(name, ".snapshot") {
			delete(mfs, name)
		}
	}
}

func partitionOf(t *testing.T, m *segtest.Manifest, dir string) segtest.PartitionManifest {
	t.Helper()
	for _, p := range m.Partitions {
		if p.Dir == dir {
			if len(p.Segments) < 3 {
				t.Fatalf("%s has %d segments, want 3 or more", dir, len(p.Segments))
			}
			return p
		}
	}
	t.Fatalf("no partition %s", dir)
	return segtest.PartitionManifest{}
}

func gapsOf(rep *Report, dir string) []analysis.GapRow {
	var out []analysis.GapRow
	for _, g := range rep.Gaps {
		if g.Dir == dir {
			out = append(out, g)
		}
	}
	return out
}

func verdictOf(t *testing.T, rep *Report, dir string) check.Verdict {
	t.Helper()
	for _, v := range rep.Verdicts {
		if v.Dir == dir {
			return v
		}
	}
	t.Fatalf("no verdict for %s: %+v", dir, rep.Verdicts)
	return check.Verdict{}
}

func lastOf(g analysis.GapRow) int64 {
	if g.LastOffset == nil {
		return -1
	}
	return *g.LastOffset
}

// TestLedgerIntact: a log dir as a broker leaves it loses nothing; the
// compacted partition's gaps are compaction notes.
func TestLedgerIntact(t *testing.T) {
	mfs, m := multiSegment(t)
	rep := verifyFS(t, mfs)
	if c := counting(rep); len(c) > 0 {
		t.Fatalf("findings on an intact dir: %v", c)
	}
	for _, p := range m.Partitions {
		v := verdictOf(t, rep, p.Dir)
		if !v.Intact || v.LogEndOffset != p.LogEndOffset {
			t.Errorf("%s: %+v, want intact up to %d", p.Dir, v, p.LogEndOffset)
		}
	}
	for _, g := range rep.Gaps {
		if g.Severity != finding.Note || g.Dir != "compacted-0" || g.Cause != check.CauseCompaction {
			t.Errorf("gap on an intact dir: %+v", g)
		}
	}
	if len(gapsOf(rep, "compacted-0")) == 0 {
		t.Errorf("no compaction gaps in compacted-0")
	}
}

// TestLedgerTruncatedRolledSegment: a rolled segment cut inside its last
// batch has lost that batch: an error at its byte position, and a gap of
// exactly its offsets, bounded by the next segment.
func TestLedgerTruncatedRolledSegment(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-0")
	seg := p.Segments[0]
	lastB := seg.Batches[len(seg.Batches)-1]
	name := seg.File
	mfs[name].Data = mfs[name].Data[:len(mfs[name].Data)-37]
	rep := verifyFS(t, mfs)
	f := want(t, rep, finding.KindTruncated, name, lastB.Position, -2, "")
	if f.Severity != finding.Error {
		t.Errorf("torn batch in a rolled segment: severity %s, want error", f.Severity)
	}
	gs := gapsOf(rep, "codecs-0")
	wantLast := p.Segments[1].Batches[0].BaseOffset - 1
	if len(gs) != 1 || gs[0].FirstOffset != lastB.BaseOffset || lastOf(gs[0]) != wantLast || gs[0].Cause != check.CauseTruncated ||
		gs[0].Severity != finding.Error || gs[0].Position == nil || *gs[0].Position != lastB.Position || gs[0].File != name {
		t.Fatalf("gaps %+v, want one error truncated-batch gap %d..%d at byte %d of %s", gs, lastB.BaseOffset, wantLast, lastB.Position, name)
	}
	if v := verdictOf(t, rep, "codecs-0"); v.Intact || v.Lost != wantLast-lastB.BaseOffset+1 {
		t.Errorf("verdict %+v", v)
	}
}

// TestLedgerTornActiveTail: the same cut in the active segment of a
// crashed broker's copy (no .kafka_cleanshutdown) is a torn tail: a
// warning, bounded by the high watermark checkpoint.
func TestLedgerTornActiveTail(t *testing.T) {
	mfs, m := multiSegment(t)
	delete(mfs, ".kafka_cleanshutdown")
	p := partitionOf(t, m, "codecs-0")
	seg := p.Segments[len(p.Segments)-1]
	lastB := seg.Batches[len(seg.Batches)-1]
	mfs[seg.File].Data = mfs[seg.File].Data[:len(mfs[seg.File].Data)-5]
	rep := verifyFS(t, mfs)
	if f := want(t, rep, finding.KindTruncated, seg.File, lastB.Position, -2, "torn tail"); f.Severity != finding.Warning {
		t.Errorf("torn active tail: severity %s, want warning", f.Severity)
	}
	gs := gapsOf(rep, "codecs-0")
	if len(gs) != 1 || gs[0].FirstOffset != lastB.BaseOffset || lastOf(gs[0]) != p.LogEndOffset-1 || gs[0].Severity != finding.Warning {
		t.Fatalf("gaps %+v, want one warning gap %d..%d", gs, lastB.BaseOffset, p.LogEndOffset-1)
	}
}

// TestLedgerMissingMiddleSegment: a segment deleted from the middle of a
// partition that is not compacted is a warning naming its offsets; the
// same in the compacted partition is compaction.
func TestLedgerMissingMiddleSegment(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "idempotent-0")
	mid := p.Segments[1]
	dropSegment(mfs, mid.File)
	rep := verifyFS(t, mfs)
	first, last := mid.Batches[0].BaseOffset, mid.Batches[len(mid.Batches)-1].LastOffset
	gs := gapsOf(rep, "idempotent-0")
	if len(gs) != 1 || gs[0].Cause != check.CauseMissingSegment || gs[0].Severity != finding.Warning || gs[0].FirstOffset != first || lastOf(gs[0]) != last {
		t.Fatalf("gaps %+v, want one missing-segment warning %d..%d", gs, first, last)
	}
	want(t, rep, finding.KindMissingSegment, p.Segments[2].File, 0, first, "")
	if v := verdictOf(t, rep, "idempotent-0"); v.Intact || v.Lost != last-first+1 {
		t.Errorf("verdict %+v", v)
	}
}

func TestLedgerMissingSegmentCompacted(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "compacted-0")
	mid := p.Segments[1]
	delete(mfs, mid.File)
	prefix := strings.TrimSuffix(mid.File, ".log")
	delete(mfs, prefix+".index")
	delete(mfs, prefix+".timeindex")
	rep := verifyFS(t, mfs)
	for _, g := range gapsOf(rep, "compacted-0") {
		if g.Severity != finding.Note || g.Cause != check.CauseCompaction {
			t.Errorf("compacted partition: gap %+v, want compaction notes only", g)
		}
	}
	if v := verdictOf(t, rep, "compacted-0"); !v.Intact {
		t.Errorf("verdict %+v", v)
	}
}

// TestLedgerSkippedBatchIsNotCompaction: a batch whose length field is
// damaged is skipped over to the next valid batch; the jump in offsets
// across the skipped bytes is the damage's, not a sign of compaction, so
// a missing segment of the same uncompacted partition stays a loss.
// Truth: idempotent-0's second segment is deleted and the length of the
// first segment's second batch is corrupted.
func TestLedgerSkippedBatchIsNotCompaction(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "idempotent-0")
	mid := p.Segments[1]
	dropSegment(mfs, mid.File)
	seg := p.Segments[0]
	if len(seg.Batches) < 3 {
		t.Fatalf("%s has %d batches, want 3 or more", seg.File, len(seg.Batches))
	}
	b := seg.Batches[1]
	data := slices.Clone(mfs[seg.File].Data)
	data[b.Position+9] ^= 0x40 // the batch length, bytes 8..11
	mfs[seg.File] = &fstest.MapFile{Data: data}
	rep := verifyFS(t, mfs)
	byCause := map[string]analysis.GapRow{}
	for _, g := range gapsOf(rep, "idempotent-0") {
		if g.Cause == check.CauseCompaction {
			t.Errorf("gap %+v called compaction", g)
		}
		byCause[g.Cause] = g
	}
	if g, ok := byCause[check.CauseDamaged]; !ok || g.FirstOffset != b.BaseOffset || lastOf(g) != b.LastOffset || g.Severity != finding.Error {
		t.Errorf("damaged gap %+v, want %d..%d", g, b.BaseOffset, b.LastOffset)
	}
	first, last := mid.Batches[0].BaseOffset, mid.Batches[len(mid.Batches)-1].LastOffset
	if g, ok := byCause[check.CauseMissingSegment]; !ok || g.FirstOffset != first || lastOf(g) != last || g.Severity != finding.Warning {
		t.Errorf("missing-segment gap %+v, want %d..%d", g, first, last)
	}
	for _, f := range rep.Findings {
		if f.Kind == finding.KindOffsetGap {
			t.Errorf("finding %+v", f)
		}
	}
}

// TestLedgerNoReadableBatch: a partition copy of which not one batch can
// be read is not intact. Truth: codecs-0 keeps only its first segment,
// with the high watermark at the partition's log end; that segment has
// every batch's CRC broken (offsets 0..end-1 lost with the damage), or
// is empty (offsets 0..end-1 below the checkpoint and not on disk).
func TestLedgerNoReadableBatch(t *testing.T) {
	for _, empty := range []bool{false, true} {
		mfs, m := multiSegment(t)
		p := partitionOf(t, m, "codecs-0")
		for _, sg := range p.Segments[1:] {
			dropSegment(mfs, sg.File)
		}
		seg := p.Segments[0]
		data := slices.Clone(mfs[seg.File].Data)
		for _, b := range seg.Batches {
			data[b.Position+int64(b.Size)-3] ^= 0x01
		}
		if empty {
			data = nil
		}
		mfs[seg.File] = &fstest.MapFile{Data: data}
		end := p.LogEndOffset
		setCheckpoint(t, mfs, "replication-offset-checkpoint", "codecs 0", fmt.Sprint(end))
		rep := verifyFS(t, mfs)
		cause, sev := check.CauseDamaged, finding.Error
		if empty {
			cause, sev = check.CauseCheckpointAh, finding.Warning
		}
		gs := gapsOf(rep, "codecs-0")
		if len(gs) != 1 || gs[0].Cause != cause || gs[0].Severity != sev || gs[0].FirstOffset != 0 || lastOf(gs[0]) != end-1 {
			t.Errorf("empty %v: gaps %+v, want one %s %s 0..%d", empty, gs, sev, cause, end-1)
		}
		if v := verdictOf(t, rep, "codecs-0"); v.Intact || v.Lost != end {
			t.Errorf("empty %v: verdict %+v, want %d offsets lost", empty, v, end)
		}
	}
}

// TestLedgerRetention: the first segment gone, with the leader-epoch
// checkpoint moved to the new log start as the broker moves it, is
// retention, a note.
func TestLedgerRetention(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-1")
	dropSegment(mfs, p.Segments[0].File)
	retainTo(t, mfs, "codecs-1", p.Segments[1].BaseOffset)
	rep := verifyFS(t, mfs)
	gs := gapsOf(rep, "codecs-1")
	if len(gs) != 1 || gs[0].Cause != check.CauseRetention || gs[0].Severity != finding.Note || gs[0].FirstOffset != 0 || lastOf(gs[0]) != p.Segments[1].BaseOffset-1 {
		t.Fatalf("gaps %+v", gs)
	}
	if !strings.Contains(gs[0].Explanation, "leader-epoch-checkpoint") {
		t.Errorf("explanation %q does not name the leader-epoch-checkpoint", gs[0].Explanation)
	}
	if v := verdictOf(t, rep, "codecs-1"); !v.Intact {
		t.Errorf("verdict %+v", v)
	}
}

// TestLedgerOldestSegmentRemoved: the first segment removed from a
// cleanly stopped copy whose leader-epoch checkpoint still starts at 0,
// and whose records are seconds old against 7 days of retention, is no
// retention: its offsets are lost (issue #42, item 3).
func TestLedgerOldestSegmentRemoved(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-1")
	dropSegment(mfs, p.Segments[0].File)
	rep := verifyFS(t, mfs)
	gs := gapsOf(rep, "codecs-1")
	end := p.Segments[1].BaseOffset - 1
	if len(gs) != 1 || gs[0].Cause != check.CauseMissingSegment || gs[0].Severity != finding.Error || gs[0].FirstOffset != 0 || lastOf(gs[0]) != end {
		t.Fatalf("gaps %+v, want one error missing-segment 0..%d", gs, end)
	}
	for _, w := range []string{"leader-epoch-checkpoint still says", "retention.ms 604800000"} {
		if !strings.Contains(gs[0].Explanation, w) {
			t.Errorf("explanation %q lacks %q", gs[0].Explanation, w)
		}
	}
	if v := verdictOf(t, rep, "codecs-1"); v.Intact || v.Lost != end+1 {
		t.Errorf("verdict %+v, want %d offsets lost", v, end+1)
	}
	want(t, rep, finding.KindMissingSegment, p.Segments[1].File, -1, 0, "does not show retention")
}

// TestLedgerRetentionByConfig: without a leader-epoch checkpoint, the
// topic's retention settings and the timestamps weigh: records older
// than retention.ms are retention, younger ones a warning that says what
// is missing.
func TestLedgerRetentionByConfig(t *testing.T) {
	for _, tc := range []struct {
		ms   int64
		sev  finding.Severity
		want string
	}{{1, finding.Note, "past retention.ms 1 (the topic's config)"}, {3_600_000, finding.Warning, "retention is not shown"}} {
		mfs, m := multiSegment(t)
		p := partitionOf(t, m, "codecs-1")
		dropSegment(mfs, p.Segments[0].File)
		delete(mfs, "codecs-1/leader-epoch-checkpoint")
		rep := verifyFSWith(t, mfs, map[string]check.Retention{"codecs": {Ms: tc.ms, MsSet: true}})
		gs := gapsOf(rep, "codecs-1")
		if len(gs) != 1 || gs[0].Severity != tc.sev || !strings.Contains(gs[0].Explanation, tc.want) {
			t.Errorf("retention.ms %d: gaps %+v, want one %s naming %q", tc.ms, gs, tc.sev, tc.want)
		}
	}
}

// retainTo moves the leader-epoch checkpoint of dir to start at base, as
// the broker does when retention deletes the segments below it.
func retainTo(t *testing.T, mfs fstest.MapFS, dir string, base int64) {
	t.Helper()
	name := dir + "/leader-epoch-checkpoint"
	f := mfs[name]
	if f == nil {
		t.Fatalf("no %s", name)
	}
	lines := strings.Split(strings.TrimSpace(string(f.Data)), "\n")
	var kept []string
	var below string
	for _, l := range lines[2:] {
		var epoch, start int64
		if _, err := fmt.Sscanf(l, "%d %d", &epoch, &start); err != nil {
			t.Fatalf("%s: %q: %v", name, l, err)
		}
		if start <= base {
			below = fmt.Sprintf("%d %d", epoch, base)
			continue
		}
		kept = append(kept, l)
	}
	if below != "" {
		kept = append([]string{below}, kept...)
	}
	f.Data = []byte(fmt.Sprintf("0\n%d\n%s\n", len(kept), strings.Join(kept, "\n")))
}

// TestLedgerDamagedBatch: a batch whose CRC fails in the middle of a
// segment has its offsets lost: an error gap at its position.
func TestLedgerDamagedBatch(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "idempotent-1")
	seg := p.Segments[1]
	b := seg.Batches[1]
	mfs[seg.File].Data = flipByte(mfs[seg.File].Data, int(b.Position)+b.Size-3)
	rep := verifyFS(t, mfs)
	gs := gapsOf(rep, "idempotent-1")
	if len(gs) != 1 || gs[0].Cause != check.CauseDamaged || gs[0].Severity != finding.Error || gs[0].FirstOffset != b.BaseOffset ||
		lastOf(gs[0]) != b.LastOffset || *gs[0].Position != b.Position {
		t.Fatalf("gaps %+v, want one damaged-batch error %d..%d at %d", gs, b.BaseOffset, b.LastOffset, b.Position)
	}
}

// TestLedgerCheckpoints: a high watermark past the data is data written
// and not here; a log start above the first offset is DeleteRecords.
func TestLedgerCheckpoints(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-0")
	setCheckpoint(t, mfs, "replication-offset-checkpoint", "codecs 0", fmt.Sprint(p.LogEndOffset+10))
	// DeleteRecords up to 4: the broker lists a log start past the first
	// segment's base.
	mfs["log-start-offset-checkpoint"].Data = []byte("0\n1\ncodecs 0 4\n")
	rep := verifyFS(t, mfs)
	gs := gapsOf(rep, "codecs-0")
	byCause := map[string]analysis.GapRow{}
	for _, g := range gs {
		byCause[g.Cause] = g
	}
	if g, ok := byCause[check.CauseCheckpointAh]; !ok || g.FirstOffset != p.LogEndOffset || lastOf(g) != p.LogEndOffset+9 || g.Severity != finding.Warning {
		t.Errorf("checkpoint-ahead gap %+v in %+v", g, gs)
	}
	if g, ok := byCause[check.CauseDeleteRecords]; !ok || g.FirstOffset != 0 || lastOf(g) != 3 || g.Severity != finding.Note {
		t.Errorf("delete-records gap %+v in %+v", g, gs)
	}
}

// tarOf packs mfs under a top dir into an archive: tar, tar.gz or tar.zst.
func tarOf(t *testing.T, mfs fstest.MapFS, top, ext string) string {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	names := make([]string, 0, len(mfs))
	for n := range mfs {
		names = append(names, n)
	}
	// Not in directory order: the checker must sort an archive itself.
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	for _, n := range names {
		d := mfs[n].Data
		if err := tw.WriteHeader(&tar.Header{Name: top + "/" + n, Mode: 0o644, Size: int64(len(d)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(d)
	}
	tw.Close()
	data := buf.Bytes()
	switch ext {
	case ".tar.gz":
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(data)
		zw.Close()
		data = z.Bytes()
	case ".tar.zst":
		zw, _ := zstd.NewWriter(nil)
		data = zw.EncodeAll(data, nil)
	}
	p := filepath.Join(t.TempDir(), top+ext)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestArchiveSameFindings: a damaged log dir and its archives, whose
// entries come in reverse order, give the same findings and gaps.
func TestArchiveSameFindings(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-0")
	seg := p.Segments[0]
	mfs[seg.File].Data = mfs[seg.File].Data[:len(mfs[seg.File].Data)-37]
	// And an index entry pointing inside a batch, a snapshot that differs.
	idx := strings.TrimSuffix(p.Segments[1].File, ".log") + ".index"
	if d := mfs[idx].Data; len(d) >= 16 {
		d = slices.Clone(d)
		d[15]++
		mfs[idx].Data = d
	}
	delete(mfs, "txn-0/00000000000000000000.txnindex")
	dirRep := verifyFS(t, mfs)
	key := func(r *Report, strip string) []string {
		var out []string
		for _, f := range r.Findings {
			out = append(out, fmt.Sprintf("%s %s %s @%d o%d", f.Severity, f.Kind, strings.TrimPrefix(f.File, strip), f.Position, f.Offset))
		}
		for _, g := range r.Gaps {
			out = append(out, fmt.Sprintf("gap %s %s %d..%d %s", strings.TrimPrefix(g.Dir, strip), g.Cause, g.FirstOffset, lastOf(g), g.Severity))
		}
		sort.Strings(out)
		return out
	}
	want := key(dirRep, "")
	if len(counting(dirRep)) < 3 {
		t.Fatalf("the damaged dir has too few findings: %v", want)
	}
	for _, ext := range []string{".tar", ".tar.gz", ".tar.zst"} {
		arc := tarOf(t, mfs, "broker-1", ext)
		got := key(runPaths(t, arc), "broker-1/")
		if !slices.Equal(got, want) {
			t.Errorf("%s: findings differ from the directory's:\n got %v\nwant %v", ext, got, want)
		}
	}
}

// TestLedgerCompactedByConfig: a topic the cluster metadata configures
// with cleanup.policy=compact explains a boundary gap as compaction.
func TestLedgerCompactedByConfig(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "idempotent-0")
	mid := p.Segments[1]
	dropSegment(mfs, mid.File)
	inputs, err := source.Classify([]string{writeFS(t, mfs, "")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Run(context.Background(), inputs, pipeline.Options{Scan: scan.Config{Jobs: 1, Records: true, Compact: true},
		Check: check.Options{CompactedTopics: map[string]bool{"idempotent": true}}}, pipeline.Sinks{})
	if err != nil {
		t.Fatal(err)
	}
	var gs []analysis.GapRow
	for _, g := range res.Check.Gaps {
		if g.Dir == "idempotent-0" {
			gs = append(gs, g)
		}
	}
	if len(gs) != 1 || gs[0].Cause != check.CauseCompaction || gs[0].Severity != finding.Note || !strings.Contains(gs[0].Explanation, "cleanup.policy=compact") {
		t.Fatalf("gaps %+v, want one compaction note citing the topic config", gs)
	}
}

// TestSnapshotInsideSegment: a snapshot whose end offset lies inside a
// segment (a clean shutdown's, before appends resumed in the same
// segment) is compared with the log up to that offset. Truth:
// idempotent-0's first two segments are joined into one file, so the
// roll snapshot named after the second one's base offset lies inside it
// and matches the log below it; with a sequence changed it does not.
func TestSnapshotInsideSegment(t *testing.T) {
	for _, edited := range []bool{false, true} {
		mfs, m := multiSegment(t)
		p := partitionOf(t, m, "idempotent-0")
		s0, s1 := p.Segments[0], p.Segments[1]
		snap := ""
		for _, sn := range p.Snapshots {
			if sn.Offset == s1.BaseOffset && len(sn.Producers) > 0 {
				snap = sn.File
			}
		}
		if snap == "" {
			t.Fatalf("no snapshot with producers at %d: %+v", s1.BaseOffset, p.Snapshots)
		}
		joined := append(slices.Clone(mfs[s0.File].Data), mfs[s1.File].Data...)
		for _, f := range []string{s0.File, s1.File} {
			prefix := strings.TrimSuffix(f, ".log")
			for name := range mfs {
				if strings.HasPrefix(name, prefix+".") && !strings.HasSuffix(name, ".snapshot") {
					delete(mfs, name)
				}
			}
		}
		mfs[s0.File] = &fstest.MapFile{Data: joined}
		if edited {
			rewriteSnapshot(t, mfs, snap, func(es []snapshot.Entry) []snapshot.Entry {
				es[0].LastSequence += 3
				return es
			})
		}
		rep := verifyFS(t, mfs)
		var mismatch, unverified int
		for _, f := range rep.Findings {
			if f.File != snap {
				continue
			}
			switch f.Kind {
			case finding.KindSnapshotMismatch:
				mismatch++
			case finding.KindNotVerifiable:
				unverified++
			}
		}
		if want := map[bool]int{false: 0, true: 1}[edited]; mismatch != want || unverified != 0 {
			t.Errorf("edited %v: %d mismatches (want %d), %d not verifiable (want 0):\n%s", edited, mismatch, want, unverified, dumpFindings(rep))
		}
	}
}

// TestLedgerLinkedAwaySegment: a segment the copy holds only as a link to
// nothing (or out of the input) is unreadable, not "not a Kafka file":
// its offsets are lost to the run and the run is incomplete. Truth:
// codecs-1's first segment is a dangling symlink; its offsets, up to the
// second segment's first batch, are the loss.
func TestLedgerLinkedAwaySegment(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-1")
	s0, s1 := p.Segments[0], p.Segments[1]
	root := writeFS(t, mfs, "")
	seg := filepath.Join(root, filepath.FromSlash(s0.File))
	if err := os.Remove(seg); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(t.TempDir(), "gone"), seg); err != nil {
		t.Fatal(err)
	}
	rep := runPaths(t, root)
	if !rep.Result.Incomplete() {
		t.Error("run with an unreadable segment is complete")
	}
	want(t, rep, finding.KindIOError, s0.File, -1, -1, "dangling symlink")
	for _, sk := range rep.Result.Check.Skipped {
		if sk.Path == s0.File {
			t.Errorf("%s listed as skipped: %+v", s0.File, sk)
		}
	}
	gs := gapsOf(rep, "codecs-1")
	if len(gs) == 0 || gs[0].Cause != check.CauseDamaged || gs[0].FirstOffset != 0 || lastOf(gs[0]) != s1.BaseOffset-1 {
		t.Errorf("gaps %+v, want the first segment's 0..%d lost", gs, s1.BaseOffset-1)
	}
	if v := verdictOf(t, rep, "codecs-1"); v.Intact {
		t.Errorf("verdict %+v", v)
	}
	// Its only finding is a zero-tail note; the lost offsets still fail
	// the run (verify's exit status).
	if !rep.Result.Failed() || rep.Result.LossCopies() != 1 {
		t.Errorf("a run that lost offsets: failed %v, %d copies with loss", rep.Result.Failed(), rep.Result.LossCopies())
	}
}

// TestLedgerPreallocatedSegment: a segment that ends in a hole (Kafka's
// file.preallocate, or a copy that kept the file's size) holds its batches
// and then unwritten zeros, like a zero tail: no offset is lost. Truth:
// codecs-1's active segment extended by 1 GiB of hole, checkpoints at its
// end offset.
func TestLedgerPreallocatedSegment(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-1")
	seg := p.Segments[len(p.Segments)-1]
	root := writeFS(t, mfs, "")
	if err := os.Truncate(filepath.Join(root, filepath.FromSlash(seg.File)), int64(len(mfs[seg.File].Data))+1<<30); err != nil {
		t.Fatal(err)
	}
	rep := runPaths(t, root)
	if gs := gapsOf(rep, "codecs-1"); len(gs) != 0 {
		t.Errorf("gaps %+v, want none", gs)
	}
	if v := verdictOf(t, rep, "codecs-1"); !v.Intact {
		t.Errorf("verdict %+v, want intact", v)
	}
	if rep.Result.Failed() {
		t.Error("a preallocated segment fails the run")
	}
	want(t, rep, finding.KindSparseHole, seg.File, -1, -2, "a preallocated or sparse file")
}

// TestLedgerNoSegmentFile: a partition dir without a single .log file has
// lost its log, as a broker always keeps an active segment; nothing says
// how much it held. Truth: codecs-0 keeps only its leader-epoch
// checkpoint, and the log dir's checkpoints say nothing of it.
func TestLedgerNoSegmentFile(t *testing.T) {
	mfs, _ := multiSegment(t)
	kept := 0
	for name := range mfs {
		if strings.HasPrefix(name, "codecs-0/") {
			if strings.HasSuffix(name, "/leader-epoch-checkpoint") {
				kept++
				continue
			}
			delete(mfs, name)
		}
	}
	if kept != 1 {
		t.Fatalf("codecs-0 has %d leader-epoch-checkpoint files", kept)
	}
	for _, ck := range []string{"replication-offset-checkpoint", "recovery-point-offset-checkpoint"} {
		setCheckpoint(t, mfs, ck, "codecs 0", "0")
	}
	rep := verifyFS(t, mfs)
	gs := gapsOf(rep, "codecs-0")
	if len(gs) != 1 || gs[0].Cause != check.CauseMissingSegment || gs[0].Severity != finding.Warning || gs[0].FirstOffset != 0 || gs[0].LastOffset != nil {
		t.Fatalf("gaps %+v, want one missing-segment warning from 0, end unknown", gs)
	}
	if v := verdictOf(t, rep, "codecs-0"); v.Intact || !v.Unbounded || !strings.Contains(v.Text, "on disk: no segment") {
		t.Errorf("verdict %+v", v)
	}
	want(t, rep, finding.KindMissingSegment, "codecs-0", -1, 0, "no .log file")
}

// TestLedgerZeroedTail: offsets the checkpoints say were written, where
// the active segment now ends in zeros, are a loss at the zeros' byte,
// named as such (a file system that lost its last writes, or a copy of a
// preallocated segment). Truth: codecs-0's last batch is overwritten with
// zeros; the high watermark stays at the log end.
func TestLedgerZeroedTail(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-0")
	seg := p.Segments[len(p.Segments)-1]
	b := seg.Batches[len(seg.Batches)-1]
	data := slices.Clone(mfs[seg.File].Data)
	clear(data[b.Position : b.Position+int64(b.Size)])
	mfs[seg.File] = &fstest.MapFile{Data: data}
	setCheckpoint(t, mfs, "replication-offset-checkpoint", "codecs 0", fmt.Sprint(p.LogEndOffset))
	rep := verifyFS(t, mfs)
	gs := gapsOf(rep, "codecs-0")
	if len(gs) != 1 {
		t.Fatalf("gaps %+v", gs)
	}
	g := gs[0]
	if g.Cause != check.CauseCheckpointAh || g.FirstOffset != b.BaseOffset || lastOf(g) != p.LogEndOffset-1 || g.File != seg.File ||
		g.Position == nil || *g.Position != b.Position || !strings.Contains(g.Explanation, "ends in zeros") {
		t.Errorf("gap %+v, want offsets %d..%d at byte %d of %s, named as zeros", g, b.BaseOffset, p.LogEndOffset-1, b.Position, seg.File)
	}
}

// TestLinkedAwayPartitionDir: a partition dir that is a link out of the
// input is a partition whose files the copy lacks: an io-error, and the
// run is incomplete. Truth: codecs-1 is moved out of the log dir and
// linked back.
func TestLinkedAwayPartitionDir(t *testing.T) {
	mfs, _ := multiSegment(t)
	root := writeFS(t, mfs, "")
	away := filepath.Join(t.TempDir(), "codecs-1")
	if err := os.Rename(filepath.Join(root, "codecs-1"), away); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(away, filepath.Join(root, "codecs-1")); err != nil {
		t.Fatal(err)
	}
	rep := runPaths(t, root)
	if !rep.Result.Incomplete() {
		t.Error("run without a partition's files is complete")
	}
	want(t, rep, finding.KindIOError, "codecs-1", -1, -1, "a partition dir: its data is not checked")
}

// TestLedgerNoSegmentFileStart: without a .log file, the lost range starts
// where the dir's own files put the log start, not at 0. Truth: codecs-0
// keeps only a leader-epoch-checkpoint whose first entry starts at 40.
func TestLedgerNoSegmentFileStart(t *testing.T) {
	mfs, _ := multiSegment(t)
	for name := range mfs {
		if strings.HasPrefix(name, "codecs-0/") {
			delete(mfs, name)
		}
	}
	mfs["codecs-0/leader-epoch-checkpoint"] = &fstest.MapFile{Data: []byte("0\n2\n3 40\n4 60\n")}
	for _, ck := range []string{"replication-offset-checkpoint", "recovery-point-offset-checkpoint"} {
		setCheckpoint(t, mfs, ck, "codecs 0", "0")
	}
	rep := verifyFS(t, mfs)
	gs := gapsOf(rep, "codecs-0")
	if len(gs) != 1 || gs[0].Cause != check.CauseMissingSegment || gs[0].FirstOffset != 40 || gs[0].LastOffset != nil {
		t.Fatalf("gaps %+v, want one missing-segment from 40, end unknown", gs)
	}
}

// TestLedgerZeroedRolledSegment: a rolled segment that holds only zeros
// lost its batches (the broker trims a preallocated segment when it
// rolls it); its offsets are an error, not absent by design. Truth:
// codecs-1's first segment is overwritten with zeros of the same length.
func TestLedgerZeroedRolledSegment(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-1")
	s0, s1 := p.Segments[0], p.Segments[1]
	mfs[s0.File] = &fstest.MapFile{Data: make([]byte, len(mfs[s0.File].Data))}
	rep := verifyFS(t, mfs)
	var found bool
	for _, g := range gapsOf(rep, "codecs-1") {
		if g.FirstOffset == 0 {
			found = g.Cause == check.CauseDamaged && g.Severity == finding.Error && lastOf(g) == s1.BaseOffset-1 && g.File == s0.File
			if !found {
				t.Errorf("gap %+v, want offsets 0..%d damaged in %s", g, s1.BaseOffset-1, s0.File)
			}
		}
	}
	if !found {
		t.Errorf("no gap from 0 in %+v", gapsOf(rep, "codecs-1"))
	}
	if v := verdictOf(t, rep, "codecs-1"); v.Intact {
		t.Errorf("verdict %+v", v)
	}
}

// TestLedgerRetentionWithoutActiveSegment: retention that deletes every
// segment rolls a new, empty active segment at the log end first, so a dir
// holding only segments scheduled for deletion lacks that one. Truth:
// codecs-0's segments renamed .deleted, the high watermark at its log end:
// offsets below it are retention's (a note), and the missing active
// segment from the log end on is a missing-segment warning, end unknown.
func TestLedgerRetentionWithoutActiveSegment(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-0")
	for name, f := range mfs {
		// Each segment's files, as the broker renames them.
		for _, ext := range []string{".log", ".index", ".timeindex", ".txnindex", ".snapshot"} {
			if strings.HasPrefix(name, "codecs-0/") && strings.HasSuffix(name, ext) {
				delete(mfs, name)
				mfs[name+".deleted"] = f
			}
		}
	}
	setCheckpoint(t, mfs, "replication-offset-checkpoint", "codecs 0", fmt.Sprint(p.LogEndOffset))
	rep := verifyFS(t, mfs)
	gs := gapsOf(rep, "codecs-0")
	if len(gs) != 2 || gs[0].Cause != check.CauseRetention || gs[0].Severity != finding.Note || lastOf(gs[0]) != p.LogEndOffset-1 ||
		gs[1].Cause != check.CauseMissingSegment || gs[1].Severity != finding.Warning || gs[1].FirstOffset != p.LogEndOffset || gs[1].LastOffset != nil {
		t.Fatalf("gaps %+v, want retention to %d and a missing active segment from %d", gs, p.LogEndOffset-1, p.LogEndOffset)
	}
	if v := verdictOf(t, rep, "codecs-0"); v.Intact {
		t.Errorf("verdict %+v", v)
	}
	want(t, rep, finding.KindMissingSegment, "codecs-0", -1, p.LogEndOffset, "retention rolls a new one")
}

// TestLedgerNoSegmentFileCheckpointsAhead: a partition dir with no .log
// whose checkpoints name offsets lost those up to the high watermark (a
// bounded checkpoint-ahead range), and whatever its missing active segment
// held past them (a missing-segment range of unknown end). Truth: codecs-0
// reduced to its leader-epoch-checkpoint, high watermark 50.
func TestLedgerNoSegmentFileCheckpointsAhead(t *testing.T) {
	mfs, _ := multiSegment(t)
	for name := range mfs {
		if strings.HasPrefix(name, "codecs-0/") && !strings.HasSuffix(name, "/leader-epoch-checkpoint") {
			delete(mfs, name)
		}
	}
	setCheckpoint(t, mfs, "replication-offset-checkpoint", "codecs 0", "50")
	setCheckpoint(t, mfs, "recovery-point-offset-checkpoint", "codecs 0", "50")
	rep := verifyFS(t, mfs)
	gs := gapsOf(rep, "codecs-0")
	if len(gs) != 2 || gs[0].Cause != check.CauseCheckpointAh || gs[0].FirstOffset != 0 || lastOf(gs[0]) != 49 ||
		gs[1].Cause != check.CauseMissingSegment || gs[1].FirstOffset != 50 || gs[1].LastOffset != nil {
		t.Fatalf("gaps %+v, want checkpoint-ahead 0..49 and missing-segment from 50, end unknown", gs)
	}
	if v := verdictOf(t, rep, "codecs-0"); v.Intact || !v.Unbounded || !strings.Contains(v.Text, "LOST at least 50 offset(s)") {
		t.Errorf("verdict %+v", v)
	}
}

// TestLedgerCutThenMissingSegment: a rolled segment cut inside its last
// batch and the segment after it gone, its producer snapshot left: the
// cut takes its batch's offsets up to where the next segment began, and
// that segment's range is a missing segment of its own, not the cut's.
func TestLedgerCutThenMissingSegment(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-0")
	if len(p.Segments) < 4 {
		t.Fatalf("%d segments, want 4 or more", len(p.Segments))
	}
	seg, mid, next := p.Segments[0], p.Segments[1], p.Segments[2]
	lastB := seg.Batches[len(seg.Batches)-1]
	mfs[seg.File].Data = mfs[seg.File].Data[:len(mfs[seg.File].Data)-37]
	dropSegment(mfs, mid.File)
	snap := strings.TrimSuffix(mid.File, ".log") + ".snapshot"
	if _, ok := mfs[snap]; !ok {
		t.Fatalf("no snapshot %s beside the segments", snap)
	}
	rep := verifyFS(t, mfs)
	gs := gapsOf(rep, "codecs-0")
	midBase, nextFirst := mid.Batches[0].BaseOffset, next.Batches[0].BaseOffset
	if len(gs) != 2 {
		t.Fatalf("gaps %+v, want the cut's and the missing segment's", gs)
	}
	if gs[0].Cause != check.CauseTruncated || gs[0].FirstOffset != lastB.BaseOffset || lastOf(gs[0]) != midBase-1 {
		t.Errorf("cut gap %+v, want %d..%d", gs[0], lastB.BaseOffset, midBase-1)
	}
	if gs[1].Cause != check.CauseMissingSegment || gs[1].FirstOffset != midBase || lastOf(gs[1]) != nextFirst-1 || gs[1].File != snap {
		t.Errorf("missing gap %+v, want %d..%d naming %s", gs[1], midBase, nextFirst-1, snap)
	}
	if v := verdictOf(t, rep, "codecs-0"); v.Lost != nextFirst-lastB.BaseOffset || !strings.Contains(v.Text, "missing-segment") {
		t.Errorf("verdict %+v", v)
	}
}

// TestLedgerCleanStopCut: the active segment of a cleanly stopped copy
// cut inside the batch its offset index's last entry names. The tear is
// a loss after the stop (an error, not a crash's torn tail), and a clean
// start would take the log end from that entry, find no batch there and
// fall back to the segment's base: every offset of the segment is lost
// on restart (issue #42, items 4 and 5).
func TestLedgerCleanStopCut(t *testing.T) {
	mfs, m := multiSegment(t)
	var p segtest.PartitionManifest
	var seg segtest.SegmentManifest
	var entry segment.OffsetIndexEntry
	for _, q := range m.Partitions {
		s := q.Segments[len(q.Segments)-1]
		x, _ := segment.ParseOffsetIndex(s.File, mfs[strings.TrimSuffix(s.File, ".log")+".index"].Data, -1)
		if strings.HasPrefix(q.Dir, "codecs-") && x != nil && len(x.Entries) > 0 && len(s.Batches) > 1 {
			p, seg, entry = q, s, x.Entries[len(x.Entries)-1]
			break
		}
	}
	if seg.File == "" {
		t.Fatal("no active segment with an offset index entry")
	}
	mfs[seg.File].Data = mfs[seg.File].Data[:entry.Position+30] // past the batch header, inside the batch
	rep := verifyFS(t, mfs)
	if f := want(t, rep, finding.KindTruncated, seg.File, int64(entry.Position), -2, "stopped cleanly"); f.Severity != finding.Error {
		t.Errorf("torn active tail after a clean stop: severity %s, want error", f.Severity)
	}
	gs := gapsOf(rep, p.Dir)
	first := seg.Batches[0].BaseOffset
	var reset, tail bool
	for _, g := range gs {
		switch {
		case g.Cause == check.CauseCleanStart:
			reset = g.Severity == finding.Error && g.FirstOffset == first && lastOf(g) < p.LogEndOffset && strings.Contains(g.Explanation, "falls back")
		case g.Cause == check.CauseTruncated:
			tail = g.Severity == finding.Error && lastOf(g) == p.LogEndOffset-1 && strings.Contains(g.Explanation, "after a clean stop")
		}
	}
	if !reset || !tail {
		t.Fatalf("gaps %+v: want an error %s from %d and an error torn tail to %d", gs, check.CauseCleanStart, first, p.LogEndOffset-1)
	}
	if v := verdictOf(t, rep, p.Dir); v.Intact || v.Lost != p.LogEndOffset-first {
		t.Errorf("verdict %+v, want %d offsets lost", v, p.LogEndOffset-first)
	}
}

// TestLedgerEpochBelowAfterCrash: the leader-epoch checkpoint still below
// the first segment of a copy without a clean shutdown, whose records are
// older than retention.ms, is a warning: the broker flushes the moved
// entry after retention, and a crash may have kept it from the disk.
func TestLedgerEpochBelowAfterCrash(t *testing.T) {
	mfs, m := multiSegment(t)
	delete(mfs, ".kafka_cleanshutdown")
	p := partitionOf(t, m, "codecs-1")
	dropSegment(mfs, p.Segments[0].File)
	rep := verifyFSWith(t, mfs, map[string]check.Retention{"codecs": {Ms: 1, MsSet: true}})
	gs := gapsOf(rep, "codecs-1")
	if len(gs) != 1 || gs[0].Cause != check.CauseMissingSegment || gs[0].Severity != finding.Warning ||
		!strings.Contains(gs[0].Explanation, "without a clean shutdown") {
		t.Fatalf("gaps %+v, want one missing-segment warning that names the missing clean shutdown", gs)
	}
}
