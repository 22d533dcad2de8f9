package check_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/scan"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// The corruption campaign: a generated log dir (with the indexes and
// snapshots a broker writes beside it), and a seeded set of single faults.
// For each fault ksleuth must complete, report the fault at the right file
// and byte position, and still read every batch the fault did not touch.
//
// Faults inside one segment are checked with the segment reader on the
// bytes in memory; faults that only the relations between batches or files
// reveal (a duplicated, swapped or lost batch, a deleted segment, a short
// index, a damaged snapshot) with verify over an in-memory fs.FS.
//
// Not in the campaign, because no Kafka checksum covers them and nothing
// else can tell: flips in a v2 batch's baseOffset (bytes 0-7) and
// partitionLeaderEpoch (bytes 12-15), and in a legacy entry's offset. The
// offsets are cross-checked by verify, but a flip that keeps them rising
// is invisible by construction.

const campaignSeed = 20240611

type campaignDir struct {
	fs       fstest.MapFS
	manifest *segtest.Manifest
	segments []campaignSegment
	batches  map[string]int64 // batches per partition dir
}

type campaignSegment struct {
	file    string // slash path in fs
	dir     string // partition dir
	batches []segtest.EntryInfo
}

func loadCampaignDir(t testing.TB) *campaignDir {
	t.Helper()
	dir := t.TempDir()
	m, err := segtest.GenerateLogDir(dir, 1, segtest.GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// index.interval.bytes=1: every batch gets an index entry, so a log
	// cut at a batch boundary contradicts its index (a broker started
	// with the default interval indexes only every 4 KiB).
	if err := segtest.WriteState(dir, m, segtest.StateOptions{IndexIntervalBytes: 1}); err != nil {
		t.Fatal(err)
	}
	mfs, err := segtest.LoadFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	cd := &campaignDir{fs: mfs, manifest: m, batches: map[string]int64{}}
	for _, p := range m.Partitions {
		for _, s := range p.Segments {
			cd.segments = append(cd.segments, campaignSegment{file: filepath.ToSlash(s.File), dir: p.Dir, batches: s.Batches})
			cd.batches[p.Dir] += int64(len(s.Batches))
		}
	}
	return cd
}

// with returns a copy of the fs with one file replaced (data nil: deleted).
func (cd *campaignDir) with(name string, data []byte) fstest.MapFS {
	out := make(fstest.MapFS, len(cd.fs))
	for k, v := range cd.fs {
		out[k] = v
	}
	if data == nil {
		delete(out, name)
	} else {
		out[name] = &fstest.MapFile{Data: data, Mode: 0o444}
	}
	return out
}

// fault is one damage applied to one file.
type fault struct {
	class string
	file  string
	// data is the damaged file (nil: the file is deleted).
	data []byte
	// wantPos is the byte position the finding must name in wantFile
	// (-1: any position; the finding is about the file as a whole).
	wantFile string
	wantPos  int64
	// want lists, for a segment fault, the batches that must still be read
	// intact, at their positions in the damaged file.
	want []segtest.EntryInfo
	// wantBatches is, for a verify fault, how many batches verify must
	// count in the partition dir.
	wantBatches int64
	// reader: checked with the segment reader alone; otherwise with verify.
	reader bool
	// stream: read the damaged bytes as a plain stream, not an io.ReaderAt.
	stream bool
}

func (f fault) String() string {
	return fmt.Sprintf("%s on %s (finding wanted in %s at %d)", f.class, f.file, f.wantFile, f.wantPos)
}

func legacyHeader(b segtest.EntryInfo) int {
	if b.Magic == 0 {
		return 18
	}
	return 26
}

// headerBytes lists the header bytes of a batch that a checksum or the
// framing protects: the length, the magic and the CRC-covered header.
func headerBytes(b segtest.EntryInfo) []int {
	var out []int
	for i := 8; i < 12; i++ {
		out = append(out, i)
	}
	end := segment.BatchHeaderSize
	start := 16
	if b.Magic < 2 {
		end = legacyHeader(b)
		start = 12
	}
	for i := start; i < end; i++ {
		out = append(out, i)
	}
	return out
}

func headerEnd(b segtest.EntryInfo) int {
	if b.Magic < 2 {
		return legacyHeader(b)
	}
	return segment.BatchHeaderSize
}

func shifted(bs []segtest.EntryInfo, from int64, by int64) []segtest.EntryInfo {
	out := make([]segtest.EntryInfo, 0, len(bs))
	for _, b := range bs {
		if b.Position >= from {
			b.Position += by
		}
		out = append(out, b)
	}
	return out
}

func except(bs []segtest.EntryInfo, skip ...int) []segtest.EntryInfo {
	var out []segtest.EntryInfo
	for i, b := range bs {
		if !containsInt(skip, i) {
			out = append(out, b)
		}
	}
	return out
}

func containsInt(s []int, x int) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func concat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// garbageBytes is random text-like or binary junk with a non-zero first
// byte (a leading zero run is a zero-filled region, reported as such).
func garbageBytes(rng *rand.Rand) []byte {
	g := make([]byte, 1+rng.IntN(200))
	for i := range g {
		g[i] = byte(rng.IntN(256))
	}
	if g[0] == 0 {
		g[0] = 0xa5
	}
	return g
}

// campaignFaults builds the seeded fault set.
func campaignFaults(cd *campaignDir) []fault {
	rng := rand.New(rand.NewPCG(campaignSeed, 1))
	var fs []fault
	for _, s := range cd.segments {
		orig := cd.fs[s.file].Data
		total := cd.batches[s.dir]
		n := len(s.batches)
		for i, b := range s.batches {
			pos, size := b.Position, int64(b.Size)
			end := pos + size
			cp := func() []byte { return append([]byte(nil), orig...) }
			stream := rng.IntN(2) == 0

			// A flipped bit in a protected header byte.
			hb := headerBytes(b)
			d := cp()
			d[pos+int64(hb[rng.IntN(len(hb))])] ^= 1 << rng.IntN(8)
			fs = append(fs, fault{class: "header-flip", file: s.file, data: d, wantFile: s.file, wantPos: pos,
				want: except(s.batches, i), reader: true, stream: stream})

			// A flipped bit in the records (or compressed payload).
			if he := int64(headerEnd(b)); he < size {
				d = cp()
				d[pos+he+rng.Int64N(size-he)] ^= 1 << rng.IntN(8)
				fs = append(fs, fault{class: "payload-flip", file: s.file, data: d, wantFile: s.file, wantPos: pos,
					want: except(s.batches, i), reader: true, stream: !stream})
			}

			// Truncated inside the batch.
			fs = append(fs, fault{class: "truncate-mid-batch", file: s.file, data: orig[:pos+1+rng.Int64N(size-1)],
				wantFile: s.file, wantPos: pos, want: s.batches[:i], reader: true, stream: stream})

			// A range of the batch zeroed (some byte really changes).
			for try := 0; try < 20; try++ {
				from := pos + rng.Int64N(size)
				to := from + 1 + rng.Int64N(min(end-from, 256))
				if bytes.Count(orig[from:to], []byte{0}) == int(to-from) {
					continue
				}
				d = cp()
				clear(d[from:to])
				fs = append(fs, fault{class: "zeroed-range", file: s.file, data: d, wantFile: s.file, wantPos: pos,
					want: except(s.batches, i), reader: true, stream: !stream})
				break
			}

			// Garbage inserted before the batch.
			g := garbageBytes(rng)
			fs = append(fs, fault{class: "garbage-inserted", file: s.file, data: concat(orig[:pos], g, orig[pos:]),
				wantFile: s.file, wantPos: pos, want: shifted(s.batches, pos, int64(len(g))), reader: true, stream: stream})

			// Truncated at the batch boundary: the segment alone cannot
			// tell, its index can (every batch is indexed).
			if i > 0 {
				fs = append(fs, fault{class: "truncate-at-boundary", file: s.file, data: orig[:pos],
					wantFile: strings.TrimSuffix(s.file, ".log") + ".index", wantPos: -1,
					wantBatches: total - int64(n-i)})
			}

			// The batch written twice in a row: an offset regression at
			// the copy.
			fs = append(fs, fault{class: "duplicated-batch", file: s.file, data: concat(orig[:end], orig[pos:end], orig[end:]),
				wantFile: s.file, wantPos: end, wantBatches: total + 1})

			// The batch swapped with the next one: its offsets go back.
			if i+1 < n {
				nx := s.batches[i+1]
				nend := nx.Position + int64(nx.Size)
				fs = append(fs, fault{class: "swapped-batches", file: s.file,
					data:     concat(orig[:pos], orig[nx.Position:nend], orig[pos:end], orig[nend:]),
					wantFile: s.file, wantPos: pos + int64(nx.Size), wantBatches: total})
			}
		}
		// Garbage after the last batch.
		g := garbageBytes(rng)
		fs = append(fs, fault{class: "garbage-inserted", file: s.file, data: concat(orig, g),
			wantFile: s.file, wantPos: int64(len(orig)), want: s.batches, reader: true})

		// The segment deleted, its indexes left behind.
		fs = append(fs, fault{class: "deleted-segment", file: s.file, wantFile: strings.TrimSuffix(s.file, ".log") + ".index",
			wantPos: -1, wantBatches: total - int64(n)})
	}

	// Index files shortened by a part of an entry, and snapshot bytes
	// flipped.
	names := make([]string, 0, len(cd.fs))
	for name := range cd.fs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		data := cd.fs[name].Data
		switch path.Ext(name) {
		case ".index", ".timeindex", ".txnindex":
			entry := map[string]int{".index": 8, ".timeindex": 12, ".txnindex": 34}[path.Ext(name)]
			if len(data) < entry {
				continue
			}
			for k := 0; k < 2; k++ {
				cut := 1 + rng.IntN(entry-1)
				fs = append(fs, fault{class: "shortened-index", file: name, data: data[:len(data)-cut],
					wantFile: name, wantPos: int64(len(data) - entry), wantBatches: cd.batches[path.Dir(name)]})
			}
		case ".snapshot":
			for k := 0; k < 6; k++ {
				d := append([]byte(nil), data...)
				at := rng.IntN(len(d))
				d[at] ^= 1 << rng.IntN(8)
				want := int64(2) // the CRC field
				if at < 2 {
					want = 0 // the version
				}
				fs = append(fs, fault{class: "snapshot-flip", file: name, data: d, wantFile: name, wantPos: want,
					wantBatches: cd.batches[path.Dir(name)]})
			}
		}
	}
	return fs
}

type readBatch struct {
	pos, base int64
	records   int
	ok        bool // CRC valid and records decoded without error
}

// readSegment reads a segment's bytes with the segment reader.
func readSegment(data []byte, name string, stream bool) ([]readBatch, []*segment.CorruptionError, error) {
	var in io.Reader = bytes.NewReader(data)
	if stream {
		in = struct{ io.Reader }{in}
	}
	r := segment.NewReader(in, segment.Options{Path: name})
	defer r.Close()
	var bs []readBatch
	var fs []*segment.CorruptionError
	for r.Next() {
		if f := r.Finding(); f != nil {
			fs = append(fs, f)
			continue
		}
		b := r.Batch()
		rb := readBatch{pos: b.Position, base: b.BaseOffset, ok: b.CRCValid}
		it := r.Records()
		for it.Next() {
			rb.records++
		}
		if err := it.Err(); err != nil {
			var ce *segment.CorruptionError
			if !errors.As(err, &ce) {
				return nil, nil, err
			}
			fs = append(fs, ce)
			rb.ok = false
		}
		bs = append(bs, rb)
	}
	return bs, fs, r.Err()
}

// checkReaderFault returns the number of intact batches recovered, and
// a problem if the fault was not handled.
func checkReaderFault(f fault) (int, string) {
	bs, fs, err := readSegment(f.data, f.file, f.stream)
	if err != nil {
		return 0, "reader error: " + err.Error()
	}
	detected := false
	for _, x := range fs {
		if x.Path == f.wantFile && x.Offset == f.wantPos {
			detected = true
		}
		if x.Offset < 0 || x.Offset+x.Length > int64(len(f.data)) {
			return 0, fmt.Sprintf("finding outside the file: %v", x)
		}
	}
	got := map[int64]readBatch{}
	for _, b := range bs {
		if b.ok {
			got[b.pos] = b
		}
	}
	recovered := 0
	var missing []string
	for _, w := range f.want {
		g, ok := got[w.Position]
		if !ok || g.base != w.BaseOffset || g.records != w.Count {
			missing = append(missing, fmt.Sprintf("@%d base %d (%d records; got %+v)", w.Position, w.BaseOffset, w.Count, g))
			continue
		}
		recovered++
	}
	switch {
	case !detected:
		return recovered, fmt.Sprintf("not reported at %d; findings %v", f.wantPos, fs)
	case len(missing) > 0:
		return recovered, fmt.Sprintf("intact batches lost: %v; findings %v", missing, fs)
	}
	return recovered, ""
}

// checkVerifyFault verifies the whole damaged log dir.
func checkVerifyFault(t testing.TB, cd *campaignDir, base map[string]bool, f fault) (int64, string) {
	rep := verifyPartitionFS(t, cd.with(f.file, f.data), path.Dir(f.file))
	detected := false
	var fresh []string
	for _, x := range rep.Findings {
		if base[x.String()+x.File] || !x.Counts() {
			continue
		}
		fresh = append(fresh, x.File+": "+x.String())
		if x.File == f.wantFile && (f.wantPos < 0 || x.Position == f.wantPos) {
			detected = true
		}
	}
	switch {
	case !detected:
		return rep.Stats.Batches, fmt.Sprintf("not reported; new findings %v", fresh)
	case rep.Stats.Batches != f.wantBatches:
		return rep.Stats.Batches, fmt.Sprintf("verify read %d batches, want %d; new findings %v", rep.Stats.Batches, f.wantBatches, fresh)
	}
	return rep.Stats.Batches, ""
}

func TestCorruptionCampaign(t *testing.T) {
	start := time.Now()
	cd := loadCampaignDir(t)
	clean := verifyFS(t, cd.fs)
	base := map[string]bool{}
	for _, x := range clean.Findings {
		base[x.String()+x.File] = true
		if x.Counts() {
			t.Fatalf("the undamaged dir has a finding: %s: %s", x.File, x)
		}
	}
	var all int64
	for _, n := range cd.batches {
		all += n
	}
	if clean.Stats.Batches != all {
		t.Fatalf("clean dir: verify read %d batches, manifest has %d", clean.Stats.Batches, all)
	}

	faults := campaignFaults(cd)
	type tally struct{ tried, detected, failed int }
	byClass := map[string]*tally{}
	var tried, detected int
	var recovered, wantRecovered int64
	failures := 0
	for _, f := range faults {
		tl := byClass[f.class]
		if tl == nil {
			tl = &tally{}
			byClass[f.class] = tl
		}
		tl.tried++
		tried++
		var problem string
		if f.reader {
			n, p := checkReaderFault(f)
			recovered += int64(n)
			wantRecovered += int64(len(f.want))
			problem = p
		} else {
			n, p := checkVerifyFault(t, cd, base, f)
			recovered += min(n, f.wantBatches)
			wantRecovered += f.wantBatches
			problem = p
		}
		if problem != "" && strings.HasPrefix(problem, "not reported") {
			tl.failed++
		} else {
			tl.detected++
			detected++
		}
		if problem != "" {
			failures++
			if failures <= 25 {
				t.Errorf("%v: %s", f, problem)
			}
		}
	}
	classes := make([]string, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		t.Logf("  %-22s %4d tried, %4d detected", c, byClass[c].tried, byClass[c].detected)
	}
	t.Logf("corruption campaign (seed %d): %d faults tried, %d detected at the right file and position (%.1f%%); %d of %d untouched batches recovered (%.1f%%); %v",
		campaignSeed, tried, detected, 100*float64(detected)/float64(tried), recovered, wantRecovered,
		100*float64(recovered)/float64(wantRecovered), time.Since(start).Round(time.Millisecond))
	if tried < 1000 {
		t.Errorf("only %d faults", tried)
	}
	if failures > 0 {
		t.Errorf("%d faults not handled", failures)
	}
}

// TestCorruptionCampaignScan replays every segment fault of the
// campaign through the scan engine, on files on disk: the fault is in the
// anomalies at its file and position, and every untouched batch is in
// the batch rows with a valid CRC.
func TestCorruptionCampaignScan(t *testing.T) {
	cd := loadCampaignDir(t)
	faults := campaignFaults(cd)
	root := t.TempDir()
	for name, f := range cd.fs {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	inputs, err := source.Classify([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	tried, detected, recovered, want := 0, 0, 0, 0
	for _, f := range faults {
		if !f.reader {
			continue
		}
		tried++
		p := filepath.Join(root, filepath.FromSlash(f.file))
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
		got := map[int64]bool{}
		res, err := scan.Run(context.Background(), inputs, scan.Config{Jobs: 1, Topic: regexp.MustCompile("^" + regexp.QuoteMeta(path.Dir(f.file)[:strings.LastIndexByte(path.Dir(f.file), '-')]) + "$")},
			scan.Output{Batches: func(rows []analysis.BatchRow) error {
				for _, r := range rows {
					if r.Segment == f.file && r.CRCValid {
						got[r.Position] = true
					}
				}
				return nil
			}})
		os.WriteFile(p, cd.fs[f.file].Data, 0o644)
		if err != nil {
			t.Fatalf("%v: scan: %v", f, err)
		}
		found := false
		for _, a := range res.Anomalies {
			found = found || a.File == f.wantFile && a.Position != nil && *a.Position == f.wantPos
		}
		if found {
			detected++
		} else {
			t.Errorf("%v: not in the anomalies", f)
		}
		for _, w := range f.want {
			want++
			if got[w.Position] {
				recovered++
			} else {
				t.Errorf("%v: batch at %d missing from the batch rows", f, w.Position)
			}
		}
	}
	t.Logf("campaign through scan: %d faults, %d detected, %d of %d untouched batches in the rows", tried, detected, recovered, want)
}
