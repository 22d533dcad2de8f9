package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"runtime"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// testSegment builds a segment of n v2 batches cycling through the codecs,
// each with a few records, and returns it with each batch's position.
func testSegment(t testing.TB, n int) ([]byte, []int64) {
	t.Helper()
	var seg []byte
	var pos []int64
	codecs := []segtest.Codec{segtest.CodecNone, segtest.CodecGzip, segtest.CodecSnappy, segtest.CodecLZ4, segtest.CodecZstd}
	off := int64(0)
	for i := 0; i < n; i++ {
		var recs []segtest.Record
		for j := 0; j < 3+i%4; j++ {
			recs = append(recs, segtest.Record{
				TimestampDelta: int64(j),
				Key:            []byte(fmt.Sprintf("key-%d-%d", i, j)),
				Value:          bytes.Repeat([]byte(fmt.Sprintf("value %d/%d ", i, j)), 20),
				Headers:        []segtest.Header{{Key: "h", Value: []byte("v")}},
			})
		}
		b := segtest.Batch{Magic: 2, BaseOffset: off, PartitionLeaderEpoch: 1, Codec: codecs[i%len(codecs)],
			FirstTimestamp: 1700000000000 + int64(i)*1000, AutoDeltas: true, Records: recs,
			Producer: &segtest.Producer{ID: 1000, Epoch: 0, BaseSequence: int32(off)}}
		pos = append(pos, int64(len(seg)))
		seg = append(seg, b.Encode()...)
		off += int64(len(recs))
	}
	return seg, pos
}

// event is one thing a Reader produced, in a comparable form.
type event struct {
	finding  string // kind, or "" for a batch
	pos      int64
	length   int64
	base     int64
	crcValid bool
	records  int
	recErr   string // kind of the records iterator's error
}

func (e event) String() string {
	if e.finding != "" {
		return fmt.Sprintf("finding %s @%d+%d", e.finding, e.pos, e.length)
	}
	return fmt.Sprintf("batch @%d base %d crc %t records %d %s", e.pos, e.base, e.crcValid, e.records, e.recErr)
}

// readerInputs: every test runs over a non-seekable stream, a stream of
// known size and a random-access input, which take different paths for
// large batches.
var readerInputs = map[string]func([]byte) io.Reader{
	"stream":      func(b []byte) io.Reader { return struct{ io.Reader }{bytes.NewReader(b)} },
	"sizedStream": func(b []byte) io.Reader { return sizedStream{bytes.NewReader(b), int64(len(b))} },
	"readerAt":    func(b []byte) io.Reader { return bytes.NewReader(b) },
}

// sizedStream is a non-seekable input whose length is known, like an
// archive entry.
type sizedStream struct {
	io.Reader
	n int64
}

func (s sizedStream) Size() int64 { return s.n }

func trace(t testing.TB, in io.Reader, opts Options) []event {
	t.Helper()
	if opts.Path == "" {
		opts.Path = "test.log"
	}
	r := NewReader(in, opts)
	defer r.Close()
	var out []event
	for r.Next() {
		if f := r.Finding(); f != nil {
			if f.Path != opts.Path {
				t.Errorf("finding names %q, want %q", f.Path, opts.Path)
			}
			out = append(out, event{finding: f.Kind(), pos: f.Offset, length: f.Length})
			continue
		}
		b := r.Batch()
		e := event{pos: b.Position, base: b.BaseOffset, crcValid: b.CRCValid}
		it := r.Records()
		for it.Next() {
			e.records++
		}
		if err := it.Err(); err != nil {
			var ce *CorruptionError
			if !errors.As(err, &ce) {
				t.Fatalf("records error is not a *CorruptionError: %v", err)
			}
			e.recErr = ce.Kind()
		}
		out = append(out, e)
	}
	if err := r.Err(); err != nil {
		t.Fatalf("reader error: %v", err)
	}
	return out
}

// batchesAt returns the positions of the batches (not findings) read.
func batchesAt(evs []event) []int64 {
	var p []int64
	for _, e := range evs {
		if e.finding == "" {
			p = append(p, e.pos)
		}
	}
	return p
}

func findings(evs []event) []event {
	var f []event
	for _, e := range evs {
		if e.finding != "" {
			f = append(f, e)
		}
	}
	return f
}

func TestCleanSegment(t *testing.T) {
	seg, pos := testSegment(t, 12)
	for name, mk := range readerInputs {
		t.Run(name, func(t *testing.T) {
			evs := trace(t, mk(seg), Options{})
			if f := findings(evs); len(f) != 0 {
				t.Fatalf("findings on a clean segment: %v", f)
			}
			if got := batchesAt(evs); fmt.Sprint(got) != fmt.Sprint(pos) {
				t.Fatalf("batches at %v, want %v", got, pos)
			}
			for _, e := range evs {
				if !e.crcValid || e.recErr != "" || e.records < 3 {
					t.Fatalf("bad batch %v", e)
				}
			}
		})
	}
}

// TestDamage builds each kind of damage from a valid segment and checks
// the finding's kind and byte position, and that every batch the damage
// did not touch is still read.
func TestDamage(t *testing.T) {
	seg, pos := testSegment(t, 10)
	end := int64(len(seg))
	without := func(skip ...int) []int64 {
		var p []int64
	outer:
		for i, x := range pos {
			for _, s := range skip {
				if i == s {
					continue outer
				}
			}
			p = append(p, x)
		}
		return p
	}
	shift := func(ps []int64, from, by int64) []int64 {
		out := append([]int64(nil), ps...)
		for i := range out {
			if out[i] >= from {
				out[i] += by
			}
		}
		return out
	}
	garbage := []byte("this is not a kafka batch, just text someone wrote into the file")
	cases := []struct {
		name        string
		mutate      func([]byte) []byte
		wantKind    string
		wantPos     int64
		wantLen     int64 // 0: not checked
		wantBatches []int64
		// the damaged batch is still yielded (CRC bad, framing intact)
		hasBad     bool
		yieldedBad int64
	}{
		{
			name:        "flipped byte mid-file",
			mutate:      func(b []byte) []byte { b[pos[4]+80] ^= 0x10; return b },
			wantKind:    "crc-mismatch",
			wantPos:     pos[4],
			wantBatches: pos,
			hasBad:      true,
			yieldedBad:  pos[4],
		},
		{
			name: "bad length",
			mutate: func(b []byte) []byte {
				binary.BigEndian.PutUint32(b[pos[6]+8:], 0x7ffffff0)
				return b
			},
			wantKind:    "bad-length",
			wantPos:     pos[6],
			wantLen:     pos[7] - pos[6],
			wantBatches: without(6),
		},
		{
			name: "length pointing inside the next batch",
			mutate: func(b []byte) []byte {
				l := binary.BigEndian.Uint32(b[pos[3]+8:])
				binary.BigEndian.PutUint32(b[pos[3]+8:], l+7)
				return b
			},
			wantKind:    "crc-mismatch",
			wantPos:     pos[3],
			wantLen:     pos[4] - pos[3],
			wantBatches: without(3),
		},
		{
			name:        "truncated last batch",
			mutate:      func(b []byte) []byte { return b[:pos[9]+40] },
			wantKind:    "truncated-batch",
			wantPos:     pos[9],
			wantLen:     40,
			wantBatches: without(9),
		},
		{
			name:        "truncated inside the last header",
			mutate:      func(b []byte) []byte { return b[:pos[9]+10] },
			wantKind:    "truncated-batch",
			wantPos:     pos[9],
			wantLen:     10,
			wantBatches: without(9),
		},
		{
			name:        "zero tail",
			mutate:      func(b []byte) []byte { return append(b, make([]byte, 5000)...) },
			wantKind:    "zero-tail",
			wantPos:     end,
			wantLen:     5000,
			wantBatches: pos,
		},
		{
			name:        "short zero tail",
			mutate:      func(b []byte) []byte { return append(b, make([]byte, 9)...) },
			wantKind:    "zero-tail",
			wantPos:     end,
			wantLen:     9,
			wantBatches: pos,
		},
		{
			name: "garbage between batches",
			mutate: func(b []byte) []byte {
				out := append([]byte(nil), b[:pos[5]]...)
				out = append(out, garbage...)
				return append(out, b[pos[5]:]...)
			},
			wantKind:    "unknown-magic",
			wantPos:     pos[5],
			wantLen:     int64(len(garbage)),
			wantBatches: shift(pos, pos[5], int64(len(garbage))),
		},
		{
			name: "zeroed batch mid-file",
			mutate: func(b []byte) []byte {
				clear(b[pos[2]:pos[3]])
				return b
			},
			wantKind:    "bad-length",
			wantPos:     pos[2],
			wantLen:     pos[3] - pos[2],
			wantBatches: without(2),
		},
		{
			name:        "unknown magic",
			mutate:      func(b []byte) []byte { b[pos[1]+16] = 7; return b },
			wantKind:    "unknown-magic",
			wantPos:     pos[1],
			wantLen:     pos[2] - pos[1],
			wantBatches: without(1),
		},
		{
			name:        "flipped byte in the first header",
			mutate:      func(b []byte) []byte { b[pos[0]+30] ^= 1; return b },
			wantKind:    "crc-mismatch",
			wantPos:     pos[0],
			wantBatches: pos,
			hasBad:      true,
			yieldedBad:  pos[0],
		},
	}
	for _, c := range cases {
		for in, mk := range readerInputs {
			t.Run(c.name+"/"+in, func(t *testing.T) {
				b := c.mutate(append([]byte(nil), seg...))
				evs := trace(t, mk(b), Options{})
				fs := findings(evs)
				if len(fs) != 1 {
					t.Fatalf("want 1 finding, got %v", evs)
				}
				f := fs[0]
				if f.finding != c.wantKind || f.pos != c.wantPos || (c.wantLen != 0 && f.length != c.wantLen) {
					t.Errorf("finding %v, want %s @%d+%d", f, c.wantKind, c.wantPos, c.wantLen)
				}
				if got := batchesAt(evs); fmt.Sprint(got) != fmt.Sprint(c.wantBatches) {
					t.Errorf("batches at %v\nwant         %v", got, c.wantBatches)
				}
				for _, e := range evs {
					if e.finding != "" {
						continue
					}
					if wantBad := c.hasBad && e.pos == c.yieldedBad; e.crcValid == wantBad {
						t.Errorf("batch %v: crc validity wrong", e)
					}
				}
			})
		}
	}
}

// TestDamageInsideBatch: damage the CRC does not catch (the batch was
// written that way) is reported by the records iterator, and the reader
// goes on with the next batch.
func TestDamageInsideBatch(t *testing.T) {
	recs := []segtest.Record{{Key: []byte("a"), Value: []byte("1")}, {Key: []byte("b"), Value: []byte("2")}}
	ok := segtest.Batch{Magic: 2, BaseOffset: 2, AutoDeltas: true, Records: recs, FirstTimestamp: 1}.Encode()
	cases := []struct {
		name  string
		entry func() []byte
		want  error
	}{
		{"count above records", func() []byte {
			e := segtest.Batch{Magic: 2, AutoDeltas: true, Records: recs, FirstTimestamp: 1}.Encode()
			binary.BigEndian.PutUint32(e[57:], 3)
			segtest.FixCRC(e)
			return e
		}, ErrBadRecordCount},
		{"count below records", func() []byte {
			e := segtest.Batch{Magic: 2, AutoDeltas: true, Records: recs, FirstTimestamp: 1}.Encode()
			binary.BigEndian.PutUint32(e[57:], 1)
			segtest.FixCRC(e)
			return e
		}, ErrBadRecordCount},
		{"corrupt gzip stream", func() []byte {
			e := segtest.Batch{Magic: 2, Codec: segtest.CodecGzip, AutoDeltas: true, Records: recs, FirstTimestamp: 1}.Encode()
			e[len(e)-12] ^= 0xff
			segtest.FixCRC(e)
			return e
		}, ErrDecompress},
		{"corrupt lz4 block", func() []byte {
			e := segtest.Batch{Magic: 2, Codec: segtest.CodecLZ4, AutoDeltas: true, Records: recs, FirstTimestamp: 1}.Encode()
			binary.LittleEndian.PutUint32(e[61+7:], 0x7fff) // block size beyond the payload
			segtest.FixCRC(e)
			return e
		}, ErrDecompress},
		{"unknown codec", func() []byte {
			e := segtest.Batch{Magic: 2, Codec: 6, AutoDeltas: true, Records: recs, FirstTimestamp: 1}.Encode()
			return e
		}, ErrUnknownCodec},
		{"record length past the batch", func() []byte {
			e := segtest.Batch{Magic: 2, AutoDeltas: true, Records: recs, FirstTimestamp: 1}.Encode()
			e[61] = 0x7e // first record's length varint: 63 bytes
			segtest.FixCRC(e)
			return e
		}, ErrBadRecord},
		{"zstd in a legacy wrapper", func() []byte {
			return segtest.Batch{Magic: 1, Codec: segtest.CodecZstd, Records: recs, FirstTimestamp: 1}.Encode()
		}, ErrUnknownCodec},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := c.entry()
			in := append(append([]byte(nil), bad...), ok...)
			r := NewReader(bytes.NewReader(in), Options{Path: "x.log"})
			defer r.Close()
			if !r.Next() || r.Batch() == nil {
				t.Fatalf("first item is not a batch: finding %v, err %v", r.Finding(), r.Err())
			}
			it := r.Records()
			for it.Next() {
			}
			var ce *CorruptionError
			if !errors.As(it.Err(), &ce) || !errors.Is(it.Err(), c.want) || ce.Offset != 0 || ce.Path != "x.log" {
				t.Fatalf("records error %v, want %v at byte 0 of x.log", it.Err(), c.want)
			}
			if !r.Next() || r.Batch() == nil || r.Batch().Position != int64(len(bad)) {
				t.Fatalf("the following batch was not read")
			}
			n := 0
			for it := r.Records(); it.Next(); {
				n++
			}
			if n != 2 {
				t.Fatalf("following batch gave %d records", n)
			}
		})
	}
}

// TestDecompressionBomb: a batch that inflates past the limit is a finding
// for that batch, read in bounded memory, and the next batch is read.
func TestDecompressionBomb(t *testing.T) {
	big := make([]byte, 16<<20)
	for _, codec := range []segtest.Codec{segtest.CodecGzip, segtest.CodecSnappy, segtest.CodecLZ4, segtest.CodecZstd} {
		t.Run(fmt.Sprint(codec), func(t *testing.T) {
			bomb := segtest.Batch{Magic: 2, Codec: codec, AutoDeltas: true, FirstTimestamp: 1,
				Records: []segtest.Record{{Value: big}, {Value: big}}}.Encode()
			next := segtest.Batch{Magic: 2, BaseOffset: 2, AutoDeltas: true, FirstTimestamp: 1,
				Records: []segtest.Record{{Value: []byte("after")}}}.Encode()
			for in, mk := range readerInputs {
				evs := trace(t, mk(append(append([]byte(nil), bomb...), next...)),
					Options{MaxDecompressedBytes: 4 << 20, MaxRecordBytes: 1 << 20})
				if len(evs) != 2 || evs[0].recErr != "decompressed-too-large" || evs[1].records != 1 {
					t.Errorf("%s: %v", in, evs)
				}
			}
		})
	}
}

// TestStreamedBatches forces the large-batch path with a small threshold:
// records decode the same, and a bad CRC is still found on both inputs.
func TestStreamedBatches(t *testing.T) {
	seg, pos := testSegment(t, 10)
	for in, mk := range readerInputs {
		t.Run(in, func(t *testing.T) {
			small := trace(t, mk(seg), Options{})
			streamed := trace(t, mk(seg), Options{StreamThreshold: 256, MaxBufferedBatch: 256})
			if fmt.Sprint(small) != fmt.Sprint(streamed) {
				t.Fatalf("streamed decode differs:\n%v\n%v", small, streamed)
			}
			bad := append([]byte(nil), seg...)
			bad[pos[5]+200] ^= 0x40
			evs := trace(t, mk(bad), Options{StreamThreshold: 256, MaxBufferedBatch: 256})
			fs := findings(evs)
			if len(fs) != 1 || fs[0].finding != "crc-mismatch" || fs[0].pos != pos[5] {
				t.Fatalf("findings %v", fs)
			}
			if got := batchesAt(evs); len(got) != len(pos) {
				t.Fatalf("batches %v", got)
			}
		})
	}
}

// TestHugeLengthOnStream: a damaged length field claiming hundreds of MB
// on a non-seekable input must not make the reader allocate that much; the
// window grows only with the bytes that really arrive.
func TestHugeLengthOnStream(t *testing.T) {
	seg, pos := testSegment(t, 4)
	for _, magic := range []byte{0, 1, 2} {
		bad := append([]byte(nil), seg...)
		binary.BigEndian.PutUint32(bad[pos[2]+8:], 0x27000000)
		bad[pos[2]+16] = magic
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		evs := trace(t, struct{ io.Reader }{bytes.NewReader(bad)}, Options{})
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
			t.Errorf("magic %d: allocated %d MB for a %d-byte input", magic, grew>>20, len(bad))
		}
		if got := batchesAt(evs); len(got) != 3 {
			t.Errorf("magic %d: batches %v, want the 3 undamaged ones", magic, got)
		}
	}
}

// TestLargeBatchBoundedMemory: a 48 MB batch of small records is decoded
// from a file as a stream, so the reader's allocations follow the largest
// record, not the batch; inputs read once buffer it, growing with it.
func TestLargeBatchBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 48 MB batch")
	}
	val := bytes.Repeat([]byte("0123456789abcdef"), 256) // 4 KiB records
	recs := make([]segtest.Record, 12<<10)
	for i := range recs {
		recs[i] = segtest.Record{Key: []byte(fmt.Sprint(i)), Value: val}
	}
	for _, codec := range []segtest.Codec{segtest.CodecNone, segtest.CodecZstd, segtest.CodecLZ4} {
		seg := segtest.Batch{Magic: 2, Codec: codec, AutoDeltas: true, FirstTimestamp: 1, Records: recs}.Encode()
		seg = append(seg, segtest.Batch{Magic: 2, BaseOffset: int64(len(recs)), AutoDeltas: true, FirstTimestamp: 1,
			Records: []segtest.Record{{Value: []byte("after")}}}.Encode()...)
		for in, mk := range readerInputs {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			evs := trace(t, mk(seg), Options{StreamThreshold: 8 << 20})
			runtime.ReadMemStats(&after)
			grew := after.TotalAlloc - before.TotalAlloc
			if len(evs) != 2 || evs[0].records != len(recs) || evs[0].recErr != "" || !evs[0].crcValid || evs[1].records != 1 {
				t.Fatalf("%v/%s: %v", codec, in, evs)
			}
			limit := uint64(16 << 20)
			if in != "readerAt" {
				// An input read once cannot check a large batch ahead, so
				// it buffers the batch (growing with the bytes that
				// arrive) before trusting it.
				limit = max(limit, 3*uint64(len(seg)))
			}
			if grew > limit {
				t.Errorf("%v/%s: allocated %d MB reading a %d MB batch", codec, in, grew>>20, len(seg)>>20)
			}
		}
	}
}

// TestHugeCodecLengths: length fields inside compressed payloads (a xerial
// chunk length, a zstd window) must not reserve memory the payload cannot
// fill; each is a decompress finding in bounded memory.
func TestHugeCodecLengths(t *testing.T) {
	xerial := append(append([]byte(nil), segtest.XerialHeader...), 0x7f, 0xff, 0x00, 0x00, 1, 2, 3)
	// A zstd frame header declaring a 2 GiB window (window descriptor
	// exponent 21 -> 2^31), with a block header after it.
	zstdFrame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 21 << 3, 0x01, 0x00, 0x00}
	for name, payload := range map[string]struct {
		codec segtest.Codec
		data  []byte
	}{"snappy": {segtest.CodecSnappy, xerial}, "zstd": {segtest.CodecZstd, zstdFrame}} {
		b := make([]byte, BatchHeaderSize, BatchHeaderSize+len(payload.data))
		binary.BigEndian.PutUint32(b[8:], uint32(BatchHeaderSize-LogOverhead+len(payload.data)))
		b[16] = 2
		binary.BigEndian.PutUint16(b[21:], uint16(payload.codec))
		binary.BigEndian.PutUint32(b[57:], 1)
		b = append(b, payload.data...)
		binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], castagnoli))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		evs := trace(t, bytes.NewReader(b), Options{})
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
			t.Errorf("%s: allocated %d MB for a %d-byte batch", name, grew>>20, len(b))
		}
		if len(evs) != 1 || (evs[0].recErr != "decompress-error" && evs[0].recErr != "decompressed-too-large") {
			t.Errorf("%s: %v", name, evs)
		}
	}
}

// TestLongDamageLinear: scanning a long damaged region allocates in
// proportion to it, on every kind of input (a window that grew by the few
// bytes each probe needed once made this quadratic).
func TestLongDamageLinear(t *testing.T) {
	garbage := make([]byte, 1<<20)
	for i := range garbage {
		garbage[i] = byte(i*7919 + i>>8)
	}
	seg, _ := testSegment(t, 3)
	in := append(garbage, seg...)
	for name, mk := range readerInputs {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		evs := trace(t, mk(in), Options{})
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
			t.Errorf("%s: allocated %d MB scanning 1 MB of damage", name, grew>>20)
		}
		if n := len(batchesAt(evs)); n != 3 {
			t.Errorf("%s: %d batches after the damage, want 3", name, n)
		}
	}
}

// TestStreamedFakeHeaderSwallows: a stray header with a bad CRC whose
// length covers intact batches and ends on a later boundary must not hide
// them, also when the claimed length is over the stream threshold.
func TestStreamedFakeHeaderSwallows(t *testing.T) {
	seg, pos := testSegment(t, 8)
	fake := make([]byte, BatchHeaderSize)
	copy(fake, seg[:BatchHeaderSize])
	binary.BigEndian.PutUint32(fake[8:], uint32(len(fake)-LogOverhead+int(pos[6])))
	binary.BigEndian.PutUint32(fake[17:], 0xdeadbeef)
	in := append(fake, seg...)
	for name, mk := range readerInputs {
		evs := trace(t, mk(in), Options{StreamThreshold: 512})
		if got := batchesAt(evs); len(got) != len(pos) {
			t.Errorf("%s: batches at %v, want all %d", name, got, len(pos))
		}
	}
}

// TestRecordsOnFinding: asking for the records of a finding (no batch)
// yields none instead of dereferencing the missing batch, on both readers.
func TestRecordsOnFinding(t *testing.T) {
	seg, pos := testSegment(t, 6)
	bad := bytes.Clone(seg)
	for i := pos[2]; i < pos[3]; i++ {
		bad[i] = 0xA5
	}
	for name, r := range map[string]*Reader{
		"ReaderAt": NewReader(bytes.NewReader(bad), Options{Size: int64(len(bad))}),
		"Bytes":    NewReaderBytes(bad, Options{}),
	} {
		findings, batches := 0, 0
		for r.Next() {
			it := r.Records()
			n := 0
			for it.Next() {
				n++
			}
			if r.Batch() == nil {
				findings++
				if n != 0 || it.Err() != nil {
					t.Errorf("%s: a finding yielded %d records, err %v", name, n, it.Err())
				}
				continue
			}
			batches++
			if n == 0 {
				t.Errorf("%s: batch at %d yielded no records", name, r.Batch().Position)
			}
		}
		r.Close()
		if findings == 0 || batches != 5 {
			t.Errorf("%s: %d findings, %d batches; want at least one and 5", name, findings, batches)
		}
	}
}
