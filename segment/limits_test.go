package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// Resource limits: hostile lengths, counts and payloads finish with a
// finding in bounded memory. Peak heap is sampled with runtime/metrics
// while the reader runs; the bounds are a few times the configured
// limits, far below what the hostile fields ask for.

// peakHeap runs fn and returns the largest heap (live and not yet
// collected objects) seen above the level before it started.
func peakHeap(fn func()) uint64 { return peakHeapGuard(0, nil, fn) }

// peakHeapGuard is peakHeap that also sets over as soon as the heap grows
// past bound (when bound > 0), so that a reader fed through guardedReader
// stops instead of exhausting the machine's memory.
func peakHeapGuard(bound uint64, over *atomic.Bool, fn func()) uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	base := s[0].Value.Uint64()
	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > base && v-base > peak {
				peak = v - base
				if bound > 0 && peak > bound {
					over.Store(true)
				}
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	metrics.Read(s)
	if v := s[0].Value.Uint64(); v > base && v-base > peak {
		peak = v - base
	}
	return peak
}

// drain reads everything and returns the findings' kinds and the batches
// read, with their records' errors.
func drain(t testing.TB, in io.Reader, opts Options) (kinds []string, batches int) {
	t.Helper()
	r := NewReader(in, opts)
	defer r.Close()
	for r.Next() {
		if f := r.Finding(); f != nil {
			kinds = append(kinds, f.Kind())
			continue
		}
		batches++
		it := r.Records()
		for it.Next() {
		}
		if err := it.Err(); err != nil {
			var ce *CorruptionError
			if !errors.As(err, &ce) {
				t.Fatalf("records error is not a finding: %v", err)
			}
			kinds = append(kinds, ce.Kind())
		}
	}
	if err := r.Err(); err != nil {
		t.Fatalf("reader error: %v", err)
	}
	return kinds, batches
}

func hasKind(kinds []string, k string) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

const mib = 1 << 20

func tailBatch() []byte {
	return segtest.Batch{Magic: 2, BaseOffset: 100, AutoDeltas: true, FirstTimestamp: 1,
		Records: []segtest.Record{{Value: []byte("after the damage")}}}.Encode()
}

func TestLimitHugeLengthField(t *testing.T) {
	hdr := segtest.Batch{Magic: 2, AutoDeltas: true, FirstTimestamp: 1,
		Records: []segtest.Record{{Value: []byte("x")}}}.Encode()
	binary.BigEndian.PutUint32(hdr[8:], 0x7fffffff) // 2 GiB
	in := append(hdr, tailBatch()...)
	for name, mk := range readerInputs {
		t.Run(name, func(t *testing.T) {
			var kinds []string
			var n int
			peak := peakHeap(func() { kinds, n = drain(t, mk(in), Options{}) })
			if !hasKind(kinds, "bad-length") || n != 1 {
				t.Errorf("findings %v, %d batches", kinds, n)
			}
			if peak > 16*mib {
				t.Errorf("peak heap %d MiB for a 2 GiB length field", peak/mib)
			}
			t.Logf("2 GiB length: %v, peak heap %.1f MiB", kinds, float64(peak)/mib)
		})
	}
}

func TestLimitBillionRecordCount(t *testing.T) {
	for _, codec := range []segtest.Codec{segtest.CodecNone, segtest.CodecZstd} {
		b := segtest.Batch{Magic: 2, Codec: codec, AutoDeltas: true, FirstTimestamp: 1,
			Records: []segtest.Record{{Value: []byte("one")}, {Value: []byte("two")}}}.Encode()
		binary.BigEndian.PutUint32(b[57:], 1_000_000_000)
		if err := segtest.FixCRC(b); err != nil {
			t.Fatal(err)
		}
		in := append(b, tailBatch()...)
		t.Run(codec.String(), func(t *testing.T) {
			var kinds []string
			var n int
			start := time.Now()
			peak := peakHeap(func() { kinds, n = drain(t, bytes.NewReader(in), Options{}) })
			if !hasKind(kinds, "record-count-mismatch") || n != 2 {
				t.Errorf("findings %v, %d batches", kinds, n)
			}
			if peak > 16*mib {
				t.Errorf("peak heap %d MiB for a count of 1e9", peak/mib)
			}
			t.Logf("1e9 records claimed: %v, peak heap %.1f MiB, %v", kinds, float64(peak)/mib, time.Since(start))
		})
	}
}

// bombPayload builds a compressed stream that inflates to about total
// bytes of one record batch body, cheaply: the members, frames or chunks
// of a small compressed block of zeros, repeated. Kafka's readers (and
// ours) accept concatenated gzip members and zstd frames, and xerial
// snappy is a sequence of chunks.
func bombBatch(t testing.TB, codec segtest.Codec, total int) []byte {
	t.Helper()
	// A batch of one record whose value is `unit` zero bytes, compressed.
	const unit = 8 * mib
	one := segtest.Batch{Magic: 2, Codec: codec, AutoDeltas: true, FirstTimestamp: 1,
		Records: []segtest.Record{{Value: make([]byte, unit)}}}.Encode()
	payload := one[BatchHeaderSize:]
	reps := total / unit
	var body []byte
	switch codec {
	case segtest.CodecGzip:
		for range reps {
			body = append(body, payload...)
		}
	case segtest.CodecZstd:
		for range reps {
			body = append(body, payload...)
		}
	case segtest.CodecSnappy:
		// xerial header once, then the chunks again and again.
		hdr := len(segtest.XerialHeader)
		body = append(body, payload[:hdr]...)
		for range reps {
			body = append(body, payload[hdr:]...)
		}
	case segtest.CodecLZ4:
		// One frame: header, the blocks repeated, one end mark.
		blocks := payload[7 : len(payload)-4]
		body = append(body, payload[:7]...)
		for range reps {
			body = append(body, blocks...)
		}
		body = append(body, payload[len(payload)-4:]...)
	}
	b := append(append([]byte(nil), one[:BatchHeaderSize]...), body...)
	// The record count says what the repeated records would be.
	binary.BigEndian.PutUint32(b[57:], uint32(reps))
	binary.BigEndian.PutUint32(b[23:], uint32(reps-1))
	binary.BigEndian.PutUint32(b[8:], uint32(len(b)-LogOverhead))
	if err := segtest.FixCRC(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLimitDecompressionBombs(t *testing.T) {
	const limit = 64 * mib
	for _, codec := range []segtest.Codec{segtest.CodecGzip, segtest.CodecSnappy, segtest.CodecLZ4, segtest.CodecZstd} {
		t.Run(codec.String(), func(t *testing.T) {
			bomb := bombBatch(t, codec, 1<<30) // inflates to 1 GiB
			in := append(bomb, tailBatch()...)
			for name, mk := range readerInputs {
				var kinds []string
				var n int
				start := time.Now()
				peak := peakHeap(func() {
					kinds, n = drain(t, mk(in), Options{MaxDecompressedBytes: limit, StreamThreshold: 64 * mib})
				})
				if !hasKind(kinds, "decompressed-too-large") || n != 2 {
					t.Errorf("%s: findings %v, %d batches", name, kinds, n)
				}
				if peak > 4*limit {
					t.Errorf("%s: peak heap %d MiB with a %d MiB limit", name, peak/mib, limit/mib)
				}
				t.Logf("%s %s bomb (%d KiB inflating to 1 GiB): %v, peak heap %.1f MiB, %v",
					codec, name, len(bomb)>>10, kinds, float64(peak)/mib, time.Since(start).Round(time.Millisecond))
			}
		})
	}
}

// TestLimitRawSnappyDeclaredSize: a raw snappy block claiming a 4 GiB
// decoded size is refused from its header, before any allocation.
func TestLimitRawSnappyDeclaredSize(t *testing.T) {
	b := segtest.Batch{Magic: 2, Codec: segtest.CodecSnappy, SnappyRaw: true, AutoDeltas: true, FirstTimestamp: 1,
		Records: []segtest.Record{{Value: []byte("v")}}}.Encode()
	var hdr [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(hdr[:], 1<<32-1)
	raw := b[BatchHeaderSize:]
	_, old, _ := func() (int, int, error) { v, k := binary.Uvarint(raw); return int(v), k, nil }()
	body := append(append([]byte(nil), hdr[:n]...), raw[old:]...)
	b = append(b[:BatchHeaderSize:BatchHeaderSize], body...)
	binary.BigEndian.PutUint32(b[8:], uint32(len(b)-LogOverhead))
	if err := segtest.FixCRC(b); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.DecodedLen(body); err != nil {
		t.Fatalf("test setup: %v", err)
	}
	var kinds []string
	peak := peakHeap(func() { kinds, _ = drain(t, bytes.NewReader(append(b, tailBatch()...)), Options{}) })
	if len(kinds) == 0 || peak > 16*mib {
		t.Errorf("findings %v, peak heap %d MiB", kinds, peak/mib)
	}
}

// TestLimitHugeRecord: a batch holding one 100 MiB record. A file (random
// access) streams the batch after checking its CRC, memory follows
// MaxRecordBytes, and a record over it is a finding (ErrTooLarge), not an
// allocation. An input read once (a pipe, an archive entry) cannot be
// checked ahead, so a batch up to MaxBufferedBatch is held whole: memory is
// then bounded by the batch, here about 2.5 x 100 MiB.
func TestLimitHugeRecord(t *testing.T) {
	value := bytes.Repeat([]byte("0123456789abcdef"), 100*mib/16)
	b := segtest.Batch{Magic: 2, AutoDeltas: true, FirstTimestamp: 1,
		Records: []segtest.Record{{Key: []byte("big"), Value: value}}}.Encode()
	value = nil
	in := append(b, tailBatch()...)
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"record-limit-16MiB", Options{MaxRecordBytes: 16 * mib, StreamThreshold: 8 * mib}},
		{"defaults", Options{}}, // 64 MiB records, streamed over 32 MiB
	} {
		for name, mk := range readerInputs {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				var kinds []string
				var n int
				start := time.Now()
				peak := peakHeap(func() { kinds, n = drain(t, mk(in), c.opts) })
				wantKinds, bound := "[decompressed-too-large]", uint64(8*mib)
				if name == "stream" || name == "sizedStream" {
					wantKinds, bound = "[]", 3*100*mib
				}
				if fmt.Sprint(kinds) != wantKinds || n != 2 {
					t.Errorf("findings %v, %d batches; want %s", kinds, n, wantKinds)
				}
				if peak > bound {
					t.Errorf("peak heap %d MiB, bound %d MiB", peak/mib, bound/mib)
				}
				t.Logf("100 MiB record: %v, peak heap %.1f MiB, %v", kinds, float64(peak)/mib, time.Since(start).Round(time.Millisecond))
			})
		}
	}
}

// TestLimitSparseZeroFile: a 5 GB file of zeros (sparse: no disk used)
// is one zero-tail note, read in bounded memory. The read is stopped as
// soon as the heap passes its bound. Its time is logged, not
// asserted: a wall-clock bound fails on a loaded machine.
func TestLimitSparseZeroFile(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 5 GB")
	}
	p := filepath.Join(t.TempDir(), "00000000000000000000.log")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	const size = 5_000_000_000
	if err := os.Truncate(p, size); err != nil {
		t.Skipf("cannot make a sparse file: %v", err)
	}
	const bound = 64 * mib
	for _, c := range []struct {
		name string
		head []byte
	}{
		{"zeros", nil},
		{"batch-then-zeros", tailBatch()},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.head != nil {
				w, err := os.OpenFile(p, os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := w.WriteAt(c.head, 0); err != nil {
					t.Fatal(err)
				}
				w.Close()
			}
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var over atomic.Bool
			var evs []event
			var rerr error
			start := time.Now()
			peak := peakHeapGuard(bound, &over, func() {
				r := NewReader(guardedReader{f, size, &over}, Options{Path: p})
				defer r.Close()
				for r.Next() {
					if fd := r.Finding(); fd != nil {
						evs = append(evs, event{finding: fd.Kind(), pos: fd.Offset, length: fd.Length})
						continue
					}
					evs = append(evs, event{pos: r.Batch().Position})
				}
				rerr = r.Err()
			})
			took := time.Since(start)
			if over.Load() {
				t.Fatalf("peak heap passed %d MiB (read stopped after %v)", bound/mib, took.Round(time.Millisecond))
			}
			if rerr != nil {
				t.Fatal(rerr)
			}
			fs := findings(evs)
			wantBatches := 0
			if c.head != nil {
				wantBatches = 1
			}
			if len(fs) != 1 || fs[0].finding != "zero-tail" || fs[0].pos+fs[0].length != size || len(batchesAt(evs)) != wantBatches {
				t.Errorf("events %v", evs)
			}
			t.Logf("5 GB sparse zeros (%s): %v, peak heap %.1f MiB, %v (%.1f GB/s)", c.name, evs, float64(peak)/mib,
				took.Round(time.Millisecond), size/took.Seconds()/1e9)
		})
	}
}

// guardedReader is an input of known size that fails once over is set.
type guardedReader struct {
	f    *os.File
	size int64
	over *atomic.Bool
}

var errHeapGuard = errors.New("test stopped the read: heap over its bound")

func (g guardedReader) Read(p []byte) (int, error) {
	if g.over.Load() {
		return 0, errHeapGuard
	}
	return g.f.Read(p)
}

func (g guardedReader) ReadAt(p []byte, off int64) (int, error) {
	if g.over.Load() {
		return 0, errHeapGuard
	}
	return g.f.ReadAt(p, off)
}

func (g guardedReader) Size() int64 { return g.size }

// TestLongDamageFindingLength: damage longer than the 4 MiB the resync
// scan keeps in its window is reported with its whole length, and a long
// zero run does not grow the window.
func TestLongDamageFindingLength(t *testing.T) {
	garbage := make([]byte, 5*mib)
	for i := range garbage {
		garbage[i] = byte(i*7919+i>>8) | 1
	}
	next := tailBatch()
	for _, c := range []struct {
		name   string
		damage []byte
		kind   string
	}{
		{"garbage", garbage, "unknown-magic"},
		{"zeros", make([]byte, 64*mib), "bad-length"},
	} {
		in := append(append([]byte(nil), c.damage...), next...)
		for name, mk := range readerInputs {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				var evs []event
				peak := peakHeap(func() { evs = trace(t, mk(in), Options{}) })
				f := findings(evs)
				if len(f) != 1 || f[0].pos != 0 || f[0].length != int64(len(c.damage)) || len(batchesAt(evs)) != 1 {
					t.Errorf("events %v, want one finding @0+%d and one batch", evs, len(c.damage))
				}
				if peak > 24*mib {
					t.Errorf("peak heap %d MiB scanning %d MiB of damage", peak/mib, len(c.damage)/mib)
				}
			})
		}
	}
}
