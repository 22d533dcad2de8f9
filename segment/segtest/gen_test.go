package segtest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// readTree returns every file under dir by slash-separated relative name.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestGenerateDeterministic(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	for _, run := range []struct {
		dir  string
		seed int64
	}{{a, 1}, {b, 1}, {c, 2}} {
		if _, err := GenerateLogDir(run.dir, run.seed, GenOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ta, tb, tc := readTree(t, a), readTree(t, b), readTree(t, c)
	if len(ta) != len(tb) {
		t.Fatalf("same seed: %d vs %d files", len(ta), len(tb))
	}
	for name, data := range ta {
		if !bytes.Equal(data, tb[name]) {
			t.Errorf("same seed, %s differs", name)
		}
	}
	if bytes.Equal(ta["codecs-0/00000000000000000000.log"], tc["codecs-0/00000000000000000000.log"]) {
		t.Errorf("seeds 1 and 2 wrote the same codecs-0 segment")
	}
	if _, err := GenerateLogDir(a, 1, GenOptions{}); err == nil || !strings.HasPrefix(err.Error(), "segtest: ") {
		t.Errorf("generating into a non-empty dir: err = %v, want a segtest error", err)
	}
}

// readerView decodes one entry at the start of buf the way
// the on-disk format tells a reader to (kmsg for the framing, the test's own
// decompressors), independently of Describe, and returns its records.
func readerView(t *testing.T, buf []byte) (size int, recs []RecordInfo) {
	t.Helper()
	if len(buf) < 17 {
		t.Fatalf("entry of %d bytes", len(buf))
	}
	size = 12 + int(int32(be.Uint32(buf[8:])))
	if size > len(buf) {
		t.Fatalf("entry of %d bytes, %d left", size, len(buf))
	}
	buf = buf[:size]
	if buf[16] >= 2 {
		var kb kmsg.RecordBatch
		if err := kb.ReadFrom(buf); err != nil {
			t.Fatal(err)
		}
		if crc32.Checksum(buf[21:], castagnoli) != uint32(kb.CRC) {
			t.Fatalf("v2 crc mismatch at offset %d", kb.FirstOffset)
		}
		area := kb.Records
		if kb.NumRecords > 0 {
			area = decompress(t, Codec(kb.Attributes&7), false, kb.Records)
		}
		for range kb.NumRecords {
			l, n := binary.Varint(area)
			var kr kmsg.Record
			if n <= 0 || int(l) > len(area)-n {
				t.Fatal("bad record length")
			}
			if err := kr.ReadFrom(area[:n+int(l)]); err != nil {
				t.Fatal(err)
			}
			area = area[n+int(l):]
			ts := kb.FirstTimestamp + kr.TimestampDelta64
			if kb.Attributes&8 != 0 {
				ts = kb.MaxTimestamp
			}
			seq := int32(-1)
			if kb.FirstSequence >= 0 {
				seq = IncrementSequence(kb.FirstSequence, kr.OffsetDelta)
			}
			var hs []Header
			for _, h := range kr.Headers {
				hs = append(hs, Header{h.Key, h.Value})
			}
			recs = append(recs, RecordInfo{Offset: kb.FirstOffset + int64(kr.OffsetDelta), Timestamp: ts, Sequence: seq,
				Key: kr.Key, Value: kr.Value, Headers: hs})
		}
		if len(area) != 0 {
			t.Fatalf("%d bytes after records", len(area))
		}
		return size, recs
	}
	type msg struct {
		off      int64
		attrs    int8
		ts       int64
		key, val []byte
	}
	parse := func(b []byte) (msg, int) {
		t.Helper()
		sz := 12 + int(int32(be.Uint32(b[8:])))
		if crc32.ChecksumIEEE(b[16:sz]) != be.Uint32(b[12:]) {
			t.Fatal("legacy crc mismatch")
		}
		if b[16] == 0 {
			var m kmsg.MessageV0
			if err := m.ReadFrom(b[:sz]); err != nil {
				t.Fatal(err)
			}
			return msg{m.Offset, m.Attributes, -1, m.Key, m.Value}, sz
		}
		var m kmsg.MessageV1
		if err := m.ReadFrom(b[:sz]); err != nil {
			t.Fatal(err)
		}
		return msg{m.Offset, m.Attributes, m.Timestamp, m.Key, m.Value}, sz
	}
	w, _ := parse(buf)
	codec := Codec(w.attrs & 7)
	if codec == CodecNone {
		return size, []RecordInfo{{Offset: w.off, Timestamp: w.ts, Sequence: -1, Key: w.key, Value: w.val}}
	}
	inner := decompress(t, codec, buf[16] == 0, w.val)
	var ms []msg
	for len(inner) > 0 {
		m, sz := parse(inner)
		ms = append(ms, m)
		inner = inner[sz:]
	}
	for _, m := range ms {
		off := m.off // v0: absolute
		if buf[16] == 1 {
			off = w.off - ms[len(ms)-1].off + m.off
		}
		ts := m.ts
		if w.attrs&8 != 0 {
			ts = w.ts
		}
		recs = append(recs, RecordInfo{Offset: off, Timestamp: ts, Sequence: -1, Key: m.key, Value: m.val})
	}
	return size, recs
}

func sameRecords(a, b RecordInfo) bool {
	if a.Offset != b.Offset || a.Timestamp != b.Timestamp || a.Sequence != b.Sequence ||
		!sameBytes(a.Key, b.Key) || !sameBytes(a.Value, b.Value) || len(a.Headers) != len(b.Headers) {
		return false
	}
	for i := range a.Headers {
		if a.Headers[i].Key != b.Headers[i].Key || !sameBytes(a.Headers[i].Value, b.Headers[i].Value) {
			return false
		}
	}
	return true
}

// checkLogDir verifies that the files in dir match manifest m exactly,
// decoding every entry independently, and returns the scenario coverage.
func checkLogDir(t *testing.T, dir string, m *Manifest) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	var checkpoint strings.Builder
	fmt.Fprintf(&checkpoint, "0\n%d\n", len(m.Partitions))
	for _, p := range m.Partitions {
		fmt.Fprintf(&checkpoint, "%s %d %d\n", p.Topic, p.Partition, p.LogEndOffset)
		ep, err := os.ReadFile(filepath.Join(dir, p.Dir, "leader-epoch-checkpoint"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(ep)), "\n")
		if len(lines) != 2+len(p.LeaderEpochs) || lines[0] != "0" || lines[1] != fmt.Sprint(len(p.LeaderEpochs)) {
			t.Errorf("%s: leader-epoch-checkpoint %q", p.Dir, ep)
		}
		next := int64(-1)
		var lastEpoch int32 = -1
		var epochs []EpochEntry
		for si, s := range p.Segments {
			data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(s.File)))
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(data)) != s.Size || filepath.Base(s.File) != SegmentFileName(s.BaseOffset) {
				t.Errorf("%s: %d bytes, manifest size %d base %d", s.File, len(data), s.Size, s.BaseOffset)
			}
			if si > 0 && int64(len(data)) > m.SegmentBytes {
				t.Errorf("%s: %d bytes, over segmentBytes %d", s.File, len(data), m.SegmentBytes)
			}
			pos := 0
			for _, b := range s.Batches {
				if b.Position != int64(pos) {
					t.Fatalf("%s: batch at %d, manifest says %d", s.File, pos, b.Position)
				}
				if b.BaseOffset <= next || b.BaseOffset < s.BaseOffset {
					t.Errorf("%s: batch base %d after offset %d (segment base %d)", s.File, b.BaseOffset, next, s.BaseOffset)
				}
				size, recs := readerView(t, data[pos:])
				if size != b.Size || len(recs) != b.Count || len(recs) != len(b.Records) {
					t.Fatalf("%s@%d: size %d count %d, manifest %d/%d", s.File, pos, size, len(recs), b.Size, b.Count)
				}
				for i := range recs {
					if !sameRecords(recs[i], b.Records[i]) {
						t.Errorf("%s@%d record %d:\n read     %+v\n manifest %+v", s.File, pos, i, recs[i], b.Records[i])
					}
					if recs[i].Offset < b.BaseOffset || recs[i].Offset > b.LastOffset {
						t.Errorf("%s@%d: record offset %d outside [%d,%d]", s.File, pos, recs[i].Offset, b.BaseOffset, b.LastOffset)
					}
				}
				if b.Magic >= 2 && b.LeaderEpoch > lastEpoch {
					epochs = append(epochs, EpochEntry{b.LeaderEpoch, b.BaseOffset})
					lastEpoch = b.LeaderEpoch
				}
				pos += size
				next = b.LastOffset

				key := fmt.Sprintf("magic%d/%v", b.Magic, b.Codec)
				seen[key] = true
				if b.Magic >= 1 && b.LogAppendTime {
					seen[fmt.Sprintf("magic%d/logAppendTime", b.Magic)] = true
				}
				if b.Control && b.Count == 1 {
					seen[fmt.Sprintf("marker/%x", b.Records[0].Key)] = true
				}
				if b.Count == 0 && b.Size == 61 {
					seen["empty batch"] = true
				}
				if b.Magic >= 2 && b.Count > 0 && int64(b.Count) < b.LastOffset-b.BaseOffset+1 {
					seen["offset gaps"] = true
				}
				if b.Attributes&0x40 != 0 {
					seen["delete horizon"] = true
				}
				if b.Magic >= 2 && b.Codec == CodecSnappy && !bytes.HasPrefix(data[pos-size+61:], XerialHeader[:8]) {
					seen["snappy raw"] = true
				}
				for _, r := range b.Records {
					seen["null key"] = seen["null key"] || r.Key == nil
					seen["null value"] = seen["null value"] || r.Value == nil
					seen["empty key"] = seen["empty key"] || (r.Key != nil && len(r.Key) == 0)
					seen["empty value"] = seen["empty value"] || (r.Value != nil && len(r.Value) == 0)
					for _, h := range r.Headers {
						seen["header"] = true
						seen["null header value"] = seen["null header value"] || h.Value == nil
					}
				}
			}
			if pos != len(data) {
				t.Errorf("%s: batches end at %d of %d bytes", s.File, pos, len(data))
			}
		}
		if next+1 != p.LogEndOffset {
			t.Errorf("%s: last offset %d, log end %d", p.Dir, next, p.LogEndOffset)
		}
		// Cleaning may remove the batch an epoch started at; the epoch
		// cache keeps the offset it was assigned.
		if p.CleanerOffset >= 0 && len(epochs) > 0 && len(p.LeaderEpochs) > 0 && p.LeaderEpochs[0].Epoch == epochs[0].Epoch &&
			p.LeaderEpochs[0].StartOffset <= epochs[0].StartOffset {
			epochs[0].StartOffset = p.LeaderEpochs[0].StartOffset
		}
		if fmt.Sprint(epochs) != fmt.Sprint(p.LeaderEpochs) {
			t.Errorf("%s: leader epochs from batches %v, manifest %v", p.Dir, epochs, p.LeaderEpochs)
		}
		if len(p.Segments) > 1 {
			seen["rolled"] = true
		}
	}
	rp, err := os.ReadFile(filepath.Join(dir, "recovery-point-offset-checkpoint"))
	if err != nil || string(rp) != checkpoint.String() {
		t.Errorf("recovery-point-offset-checkpoint %q (%v), want %q", rp, err, checkpoint.String())
	}
	return seen
}

func TestGeneratedManifest(t *testing.T) {
	for _, opts := range []GenOptions{{}, {MultiBlock: true, SegmentBytes: 1 << 20}} {
		t.Run(fmt.Sprintf("%+v", opts), func(t *testing.T) {
			dir := t.TempDir()
			m, err := GenerateLogDir(dir, 1, opts)
			if err != nil {
				t.Fatal(err)
			}
			// The manifest must survive its own JSON round trip.
			js, err := m.EncodeJSON()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "manifest.json")
			if err := os.WriteFile(path, js, 0o644); err != nil {
				t.Fatal(err)
			}
			m2, err := LoadManifest(path)
			if err != nil {
				t.Fatal(err)
			}
			seen := checkLogDir(t, dir, m2)
			want := []string{
				"magic0/none", "magic0/gzip", "magic0/snappy", "magic0/lz4",
				"magic1/none", "magic1/gzip", "magic1/snappy", "magic1/lz4",
				"magic2/none", "magic2/gzip", "magic2/snappy", "magic2/lz4", "magic2/zstd", "snappy raw",
				"magic1/logAppendTime", "magic2/logAppendTime",
				"marker/00000000", "marker/00000001", "empty batch", "offset gaps", "delete horizon",
				"null key", "null value", "empty key", "empty value", "header", "null header value",
			}
			if opts.SegmentBytes == 0 {
				want = append(want, "rolled")
			}
			for _, w := range want {
				if !seen[w] {
					t.Errorf("scenario %q missing from the generated log dir", w)
				}
			}
		})
	}
}

// TestProducerRestart checks the duplicate scenario: the new producer id
// resends exactly the keys and values of the old one's last batches.
func TestProducerRestart(t *testing.T) {
	m, _, err := buildLogDir(1, GenOptions{SegmentBytes: DefaultSegmentBytes})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Partitions {
		if p.Topic != "idempotent" {
			continue
		}
		byPID := map[int64][]EntryInfo{}
		for _, s := range p.Segments {
			for _, b := range s.Batches {
				byPID[b.ProducerID] = append(byPID[b.ProducerID], b)
			}
		}
		old, restarted := byPID[3000], byPID[3001]
		if len(old) < 3 || len(restarted) < 3 || restarted[0].BaseSequence != 0 {
			t.Fatalf("%s: %d batches of 3000, %d of 3001", p.Dir, len(old), len(restarted))
		}
		for pid, bs := range byPID {
			var want int32
			for _, b := range bs {
				if b.BaseSequence != want {
					t.Errorf("%s pid %d: base sequence %d, want %d", p.Dir, pid, b.BaseSequence, want)
				}
				want = IncrementSequence(b.BaseSequence, int32(b.LastOffset-b.BaseOffset)+1)
			}
		}
		for i, b := range restarted[:3] {
			o := old[len(old)-3+i]
			for j := range b.Records {
				if !bytes.Equal(b.Records[j].Key, o.Records[j].Key) || !bytes.Equal(b.Records[j].Value, o.Records[j].Value) {
					t.Errorf("%s: resent batch %d record %d differs from the original", p.Dir, i, j)
				}
			}
		}
	}
}

// TestCommittedFixture keeps testdata/logdirs/generated reproducible: it
// must be exactly what ksleuth-gen -seed 1 writes today.
func TestCommittedFixture(t *testing.T) {
	fixture := filepath.Join("..", "..", "testdata", "logdirs", "generated")
	if _, err := os.Stat(fixture); errors.Is(err, fs.ErrNotExist) {
		t.Skip("no committed fixture")
	}
	dir := t.TempDir()
	m, err := GenerateLogDir(dir, 1, GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	js, err := m.EncodeJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	got, want := readTree(t, fixture), readTree(t, dir)
	for name, data := range want {
		if !bytes.Equal(got[name], data) {
			t.Errorf("%s differs from a fresh generation; rerun: go run ./cmd/ksleuth-gen -out testdata/logdirs/generated -seed 1", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s is in the fixture but not generated", name)
		}
	}
}
