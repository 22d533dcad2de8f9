package check_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ksleuth/ksleuth/analysis/check"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// cutArchive packs mfs under top with the names in last at the end of
// the archive, in that order, and cuts the tar stream cut bytes into the
// data of the final entry; ext ".tar.gz" compresses what is left.
func cutArchive(t *testing.T, mfs fstest.MapFS, top string, last []string, cut int, ext string) string {
	t.Helper()
	var names []string
	for n := range mfs {
		if !strings.HasPrefix(n, top) && !containsName(last, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	names = append(names, last...)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	end := 0
	for _, n := range names {
		d := mfs[n].Data
		if err := tw.WriteHeader(&tar.Header{Name: "b/" + n, Mode: 0o644, Size: int64(len(d)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Flush()
		end = buf.Len() + cut // the last entry's data starts here
		tw.Write(d)
	}
	tw.Close()
	data := buf.Bytes()[:end]
	if ext == ".tar.gz" {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(data)
		zw.Close()
		data = z.Bytes()
	}
	p := filepath.Join(t.TempDir(), "cut"+ext)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func containsName(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

// TestLedgerArchiveCut: an archive that ends inside a segment's entry,
// before the partition's first segment came. The batches read from the
// cut entry are on disk; the offsets after them, and those below the
// first segment read, are unread (the input failed), not lost and not
// retention.
func TestLedgerArchiveCut(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-0")
	n := len(p.Segments)
	s1, s2 := p.Segments[n-2], p.Segments[n-1]
	b0 := s1.Batches[0]
	for _, ext := range []string{".tar", ".tar.gz"} {
		// The last segment whole, then the one before it cut after its
		// first batch; the others never come.
		arc := cutArchive(t, mfs, "codecs-0/", []string{s2.File, s1.File}, int(b0.Position)+b0.Size+5, ext)
		rep := runPaths(t, arc)
		dir := "b/codecs-0"
		v := verdictOf(t, rep, dir)
		if v.Intact || v.FirstOffset != s1.BaseOffset || !strings.HasPrefix(v.Text, "UNREAD ") {
			t.Errorf("%s: verdict %+v", ext, v)
		}
		gs := gapsOf(rep, dir)
		var below, tail bool
		for _, g := range gs {
			switch {
			case g.Cause == check.CauseRetention:
				t.Errorf("%s: a range the archive never delivered is called retention: %+v", ext, g)
			case g.Cause == check.CauseUnread && g.FirstOffset == 0 && lastOf(g) == s1.BaseOffset-1 && g.Severity == finding.Warning:
				below = true
			case g.Cause == check.CauseUnread && g.FirstOffset == b0.LastOffset+1 && lastOf(g) == s2.BaseOffset-1 && g.Severity == finding.Warning &&
				strings.HasSuffix(g.File, s1.File) && g.Position != nil && *g.Position == b0.Position+int64(b0.Size):
				tail = true
			}
		}
		if !below || !tail {
			t.Errorf("%s: want unread ranges 0..%d and %d..%d at byte %d of %s, got %+v", ext, s1.BaseOffset-1, b0.LastOffset+1, s2.BaseOffset-1,
				b0.Position+int64(b0.Size), s1.File, gs)
		}
	}
}

// TestLedgerArchiveCutAtEntryBoundary: an archive that ends between two
// entries, after one middle segment of a partition: the offsets below it
// and those past it up to the checkpoints were not verified; neither
// retention nor a log that lost its tail is claimed for them.
func TestLedgerArchiveCutAtEntryBoundary(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-0")
	mid := p.Segments[1]
	// The cut falls on the header of the next entry, which never comes.
	arc := cutArchive(t, mfs, "codecs-0/", []string{mid.File, p.Segments[0].File}, -512, ".tar.gz")
	rep := runPaths(t, arc)
	v := verdictOf(t, rep, "b/codecs-0")
	gs := gapsOf(rep, "b/codecs-0")
	last := mid.Batches[len(mid.Batches)-1].LastOffset
	if v.Intact || !strings.HasPrefix(v.Text, "UNREAD ") || len(gs) != 2 ||
		gs[0].Cause != check.CauseUnread || gs[0].FirstOffset != 0 || lastOf(gs[0]) != mid.BaseOffset-1 ||
		gs[1].Cause != check.CauseUnread || gs[1].FirstOffset != last+1 || lastOf(gs[1]) != p.LogEndOffset-1 {
		t.Errorf("verdict %q, gaps %+v", v.Text, gs)
	}
}

// cutInSegment packs the partition dir's files in names (the segment last)
// and cuts the archive after the segment's first batch: the index files
// are read whole, the segment is not.
func cutInSegment(t *testing.T, mfs fstest.MapFS, s segtest.SegmentManifest, names ...string) (string, int64) {
	t.Helper()
	b0 := s.Batches[0]
	stop := b0.Position + int64(b0.Size)
	return cutArchive(t, mfs, "codecs-0/", append(names, s.File), int(stop)+5, ".tar"), stop
}

// TestArchiveCutIOErrorPosition: the io-error of an entry the archive
// ends inside has the byte of the entry where reading stopped as its
// position: for a segment, where the batch it could not finish begins;
// for another file, where its data ends.
func TestArchiveCutIOErrorPosition(t *testing.T) {
	mfs, m := multiSegment(t)
	s := partitionOf(t, m, "codecs-0").Segments[1]
	arc, stop := cutInSegment(t, mfs, s)
	idx := strings.TrimSuffix(s.File, ".log") + ".timeindex"
	for _, c := range []struct {
		arc, file string
		pos       int64
	}{{arc, s.File, stop}, {cutArchive(t, mfs, "codecs-0/", []string{s.File, idx}, 5, ".tar"), idx, 5}} {
		rep := runPaths(t, c.arc)
		found := false
		for _, f := range rep.Findings {
			if f.Kind == finding.KindIOError && strings.HasSuffix(f.File, c.file) {
				found = true
				if f.Position != c.pos || !strings.Contains(f.Message, fmt.Sprintf("read at byte %d", c.pos)) {
					t.Errorf("%s: io-error %s, want its position %d", c.file, f, c.pos)
				}
			}
		}
		if !found {
			t.Errorf("%s: no io-error; findings:\n%v", c.file, rep.Findings)
		}
	}
}

// TestArchiveCutIndexPastCut: the index files of a segment the archive
// ends inside. Their entries past the cut point where nothing was read:
// not one of them is an index-mismatch, and a note says they were not
// checked.
func TestArchiveCutIndexPastCut(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-0")
	var s segtest.SegmentManifest
	for _, x := range p.Segments {
		name := strings.TrimSuffix(x.File, ".log") + ".index"
		ix, _ := segment.ParseOffsetIndex(name, mfs[name].Data, x.BaseOffset)
		if len(x.Batches) > 1 && len(ix.Entries) > 0 && int64(ix.Entries[len(ix.Entries)-1].Position) > x.Batches[0].Position+int64(x.Batches[0].Size) {
			s = x
			break
		}
	}
	if s.File == "" {
		t.Fatal("no segment of codecs-0 with an index entry past its first batch")
	}
	base := strings.TrimSuffix(s.File, ".log")
	arc, _ := cutInSegment(t, mfs, s, base+".index", base+".timeindex")
	rep := runPaths(t, arc)
	var index, timeIndex bool
	for _, f := range rep.Findings {
		switch {
		case f.Kind == finding.KindIndexMismatch:
			t.Errorf("an index entry past the cut is a mismatch: %s", f)
		case f.Kind == finding.KindNotVerifiable && strings.HasSuffix(f.File, ".index") && strings.Contains(f.Message, "where the archive ends inside the segment"):
			index = true
		case f.Kind == finding.KindNotVerifiable && strings.HasSuffix(f.File, ".timeindex") && strings.Contains(f.Message, "where the archive ends inside the segment"):
			timeIndex = true
		}
	}
	if !index || !timeIndex {
		t.Errorf("want notes on the .index and .timeindex of the cut segment; findings:\n%v", rep.Findings)
	}
}

// TestArchiveCutSnapshotAhead: a producer snapshot of a later segment, in
// an archive that ends inside the segment before it. The snapshot, and the
// checkpoints, are ahead of the log read because the archive ended, not
// because the copy was taken while the broker wrote: notes that say so.
func TestArchiveCutSnapshotAhead(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-0")
	n := len(p.Segments)
	s1, s2 := p.Segments[n-2], p.Segments[n-1]
	snap := strings.TrimSuffix(s2.File, ".log") + ".snapshot"
	if _, ok := mfs[snap]; !ok {
		t.Fatalf("no %s", snap)
	}
	arc, _ := cutInSegment(t, mfs, s1, snap)
	rep := runPaths(t, arc)
	var note, ckNote bool
	for _, f := range rep.Findings {
		if f.Kind == finding.KindCheckpointAhead && strings.Contains(f.Message, "codecs-0") {
			if f.Severity != finding.Note || !strings.Contains(f.Message, "the archive ends inside "+path.Base(s1.File)) {
				t.Errorf("checkpoint-ahead of a cut archive: %s", f)
			}
			ckNote = true
		}
		if f.Kind != finding.KindSnapshotAhead {
			continue
		}
		if f.Severity != finding.Note || !strings.Contains(f.Message, "the archive ends inside "+path.Base(s1.File)) || strings.Contains(f.Message, "broker was writing") {
			t.Errorf("snapshot-ahead of a cut archive: %s", f)
		}
		note = true
	}
	if !note || !ckNote {
		t.Errorf("want snapshot-ahead and checkpoint-ahead notes; findings:\n%v", rep.Findings)
	}
}

// TestArchiveCutPartitionWithoutLog: a partition dir whose index file came
// and whose .log would have come next, but the archive ended first: its
// offsets are unread, not a missing segment. The same dir followed by
// another partition's entries came whole: its .log is missing.
func TestArchiveCutPartitionWithoutLog(t *testing.T) {
	mfs, m := multiSegment(t)
	p := partitionOf(t, m, "codecs-0")
	s := p.Segments[len(p.Segments)-1]
	idx := strings.TrimSuffix(s.File, ".log") + ".timeindex"
	if _, ok := mfs[idx]; !ok {
		t.Fatalf("no %s", idx)
	}
	// The archive ends where the .log's header would begin.
	rep := runPaths(t, cutArchive(t, mfs, "codecs-0/", []string{idx, s.File}, -512, ".tar.gz"))
	for _, f := range rep.Findings {
		if strings.Contains(f.File, "codecs-0") && f.Counts() || f.Kind == finding.KindMissingSegment || f.Kind == finding.KindCheckpointAhead && f.Counts() {
			t.Errorf("finding for a partition dir the archive ended inside: %s", f)
		}
	}
	gs := gapsOf(rep, "b/codecs-0")
	if len(gs) != 1 || gs[0].Cause != check.CauseUnread || gs[0].FirstOffset != p.LogStartOffset || lastOf(gs[0]) != p.LogEndOffset-1 {
		t.Errorf("gaps %+v, want one unread range %d..%d", gs, p.LogStartOffset, p.LogEndOffset-1)
	}
	if v := verdictOf(t, rep, "b/codecs-0"); !strings.HasPrefix(v.Text, "UNREAD ") {
		t.Errorf("verdict %q", v.Text)
	}

	// Another partition's segment last: the archive had left codecs-0.
	other := partitionOf(t, m, "codecs-1").Segments[0]
	rep = runPaths(t, cutArchive(t, mfs, "codecs-0/", []string{idx, other.File}, 100, ".tar.gz"))
	missing := false
	for _, f := range rep.Findings {
		missing = missing || f.Kind == finding.KindMissingSegment && strings.HasSuffix(f.File, idx)
	}
	gs = gapsOf(rep, "b/codecs-0")
	if !missing || len(gs) == 0 || gs[0].Cause == check.CauseUnread {
		t.Errorf("a dir the archive left is missing its .log: missing-segment finding %v, gaps %+v", missing, gs)
	}
}

// TestArchiveCutLeftDirJudgedWhole: a partition dir the archive had left
// before it ended came whole, so what it lacks is judged as in an uncut
// copy: a missing first segment is retention, a missing middle one or
// one whose .log alone is gone a missing segment, a missing last one a
// checkpoint ahead of the log; none of it is unread. Truth: idempotent-0
// loses the segment named, and its entries all come before those of
// codecs-0, inside whose segment the archive ends.
func TestArchiveCutLeftDirJudgedWhole(t *testing.T) {
	for _, c := range []struct {
		name    string
		seg     int  // the segment of idempotent-0 taken away, -1 the last
		logOnly bool // its .log alone, its index files left
	}{{"first", 0, false}, {"middle", 1, false}, {"last", -1, false}, {"last-log-only", -1, true}} {
		mfs, m := multiSegment(t)
		p := partitionOf(t, m, "idempotent-0")
		s := p.Segments[(c.seg+len(p.Segments))%len(p.Segments)]
		if c.logOnly {
			delete(mfs, s.File)
		} else {
			dropSegment(mfs, s.File)
		}
		whole := verifyFS(t, mfs)
		q := partitionOf(t, m, "codecs-0")
		cut := q.Segments[len(q.Segments)-1]
		rep := runPaths(t, cutArchive(t, mfs, "codecs-0/", []string{cut.File}, int(cut.Batches[0].Position)+5, ".tar"))
		want, got := gapsOf(whole, "idempotent-0"), gapsOf(rep, "b/idempotent-0")
		if len(want) == 0 || len(got) != len(want) {
			t.Errorf("%s: gaps %+v, want those of the uncut copy %+v", c.name, got, want)
			continue
		}
		for i, g := range got {
			w := want[i]
			if g.Cause != w.Cause || g.Severity != w.Severity || g.FirstOffset != w.FirstOffset || lastOf(g) != lastOf(w) {
				t.Errorf("%s: gap %+v, want %+v as in the uncut copy", c.name, g, w)
			}
		}
		if v, w := verdictOf(t, rep, "b/idempotent-0"), verdictOf(t, whole, "idempotent-0"); v.Text != w.Text {
			t.Errorf("%s: verdict %q, want %q as in the uncut copy", c.name, v.Text, w.Text)
		}
		if g, w := kindsIn(rep, "b/idempotent-0/"), kindsIn(whole, "idempotent-0/"); g != w {
			t.Errorf("%s: findings %s, want %s as in the uncut copy", c.name, g, w)
		}
		// The dir the archive ended inside is still unread.
		if v := verdictOf(t, rep, "b/codecs-0"); !strings.HasPrefix(v.Text, "UNREAD ") {
			t.Errorf("%s: codecs-0 verdict %q", c.name, v.Text)
		}
	}
}

// kindsIn lists the severity and kind of the findings on files below
// prefix, sorted.
func kindsIn(rep *Report, prefix string) string {
	var ks []string
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.File, prefix) {
			ks = append(ks, string(f.Severity)+" "+string(f.Kind))
		}
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

// TestArchiveCutPartitionsNeverReached: the checkpoints of a log dir the
// archive ended inside name partitions none of whose entries came: the
// note says the archive ended before them, and each has one verdict and
// one ledger row, unread from its log start up to its checkpoints, counted
// among the unread copies. A log dir the archive had left came whole: a
// partition its checkpoints name that is not there is absent from the
// copy, with no verdict. Truth: idempotent-1 never comes; in the second
// archive the log dir l1 lacks it and comes whole before l2, inside
// which the archive ends.
func TestArchiveCutPartitionsNeverReached(t *testing.T) {
	mfs, m := multiSegment(t)
	s := partitionOf(t, m, "idempotent-0").Segments[1]
	cut := int(s.Batches[0].Position) + 5
	rep := runPaths(t, cutArchive(t, mfs, "idempotent-", []string{s.File}, cut, ".tar"))
	if n := staleNotes(rep, "idempotent-1", "the archive ended before them"); n == 0 || staleNotes(rep, "idempotent-1", "partial copy") > 0 {
		t.Errorf("want notes that the archive ended before idempotent-1; findings:\n%v", rep.Findings)
	}
	never := partitionOf(t, m, "idempotent-1")
	var vs []check.Verdict
	for _, v := range rep.Verdicts {
		if v.Dir == "b/idempotent-1" {
			vs = append(vs, v)
		}
	}
	want := fmt.Sprintf("UNREAD %d offset(s): %d..%d warning (unread); on disk: nothing read (the archive ended before it)",
		never.LogEndOffset-never.LogStartOffset, never.LogStartOffset, never.LogEndOffset-1)
	if len(vs) != 1 || vs[0].Text != want || !vs[0].Unread || vs[0].Topic != "idempotent" || vs[0].Partition != 1 {
		t.Errorf("verdicts of idempotent-1 %+v, want one %q", vs, want)
	}
	if gs := gapsOf(rep, "b/idempotent-1"); len(gs) != 1 || gs[0].Cause != check.CauseUnread || gs[0].Severity != finding.Warning ||
		gs[0].FirstOffset != never.LogStartOffset || lastOf(gs[0]) != never.LogEndOffset-1 {
		t.Errorf("gaps of idempotent-1 %+v, want one unread range %d..%d", gs, never.LogStartOffset, never.LogEndOffset-1)
	}
	// idempotent-0, which the archive ended inside, and idempotent-1.
	if n := rep.Result.UnreadCopies(); n != 2 {
		t.Errorf("%d unread copies, want 2", n)
	}

	two := fstest.MapFS{}
	for n, f := range mfs {
		if !strings.HasPrefix(n, "idempotent-1/") {
			two["l1/"+n] = f
		}
		two["l2/"+n] = f
	}
	rep = runPaths(t, cutArchive(t, two, "l2/", []string{"l2/" + s.File}, cut, ".tar"))
	if n := staleNotes(rep, "idempotent-1", "partial copy"); n == 0 || staleNotes(rep, "idempotent-1", "the archive ended") > 0 {
		t.Errorf("want notes that l1 lacks idempotent-1; findings:\n%v", rep.Findings)
	}
	for _, v := range rep.Verdicts {
		if v.Dir == "b/l1/idempotent-1" {
			t.Errorf("a verdict for a partition a whole log dir lacks: %+v", v)
		}
	}
	if gs := gapsOf(rep, "b/l1/idempotent-1"); len(gs) > 0 {
		t.Errorf("ledger rows for a partition a whole log dir lacks: %+v", gs)
	}
}

// staleNotes counts the checkpoint-stale notes that name partition part
// as without a directory, with text in their message.
func staleNotes(rep *Report, part, text string) int {
	n := 0
	for _, f := range rep.Findings {
		if f.Kind == finding.KindCheckpointStale && strings.Contains(f.Message, part) && strings.Contains(f.Message, text) {
			n++
		}
	}
	return n
}
