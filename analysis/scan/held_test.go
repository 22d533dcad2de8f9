package scan

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// heldRows are rows whose fields take every form the codec must keep
// apart: null and empty key, value and header value, no headers and an
// empty header list, a zero and a missing timestamp, extreme numbers.
func heldRows() []analysis.PayloadRecordRow {
	ts0, tsNeg := int64(0), int64(math.MinInt64)
	var rows []analysis.PayloadRecordRow
	for i := range 40 {
		r := analysis.PayloadRecordRow{RecordRow: analysis.RecordRow{
			Input: int32(i % 3), Source: "src", Topic: fmt.Sprintf("t%d", i%2), Partition: int32(i), Segment: "t-0/00000000000000000000.log",
			Dir: "t-0", BatchPosition: int64(i) * 1000, Offset: math.MaxInt64 - int64(i), ProducerID: -1 - int64(i),
			ProducerEpoch: math.MaxInt32, Sequence: math.MinInt32, KeySize: -1, ValueSize: int32(i), HeaderCount: int32(i % 4),
			Fingerprint: fmt.Sprintf("%032x", i), TxnState: txnPending, IsControl: i%7 == 0, Damaged: i%5 == 0, HasFP: i%2 == 0,
			TimestampType: [...]string{"CreateTime", "LogAppendTime", "NoTimestampType"}[i%3],
		}}
		r.FP[0], r.FP[15] = byte(i), 0xff
		switch i % 4 {
		case 0:
			r.Timestamp = &ts0
			r.Key, r.Value = nil, []byte{}
		case 1:
			r.Key, r.Value = []byte{}, nil
			r.Headers = []analysis.Header{}
		case 2:
			r.Timestamp = &tsNeg
			r.Key, r.Value = []byte("k"), make([]byte, 300+i)
			r.Headers = []analysis.Header{{Key: "", Value: nil}, {Key: "trace", Value: []byte{}}, {Key: "h", Value: []byte{0, 1}}}
		}
		rows = append(rows, r)
	}
	return rows
}

func heldEntryBatches() []EntryBatch {
	var bs []EntryBatch
	for i := range 12 {
		b := EntryBatch{Input: int32(i), Source: "s", Topic: "t", Partition: int32(i), Segment: "t-1/x.log", BatchPosition: int64(i) << 40,
			ProducerID: int64(i) - 3, ProducerEpoch: int32(i) - 1, Damaged: i%3 == 0, SoleCopy: i%4 == 1, pending: i%2 == 0}
		for j := range i {
			e := analysis.RecordEntry{Offset: int64(j) - 1, Timestamp: -1, Sequence: int32(j) * -7, Txn: analysis.TxnState(j % 4), Control: j%3 == 1}
			e.Fingerprint[j%16] = byte(j + 1)
			b.Entries = append(b.Entries, e)
		}
		bs = append(bs, b)
	}
	return bs
}

// checkHeld adds items round robin to three transactions of h, ends the
// second, then takes the rest as open, and checks each comes back whole
// and in order.
func checkHeld[T any](t *testing.T, h *heldTxns[T], items []T) {
	t.Helper()
	keys := []txnKey{{analysis.PartitionKey{Dir: "a"}, 1}, {analysis.PartitionKey{Dir: "b"}, 1}, {analysis.PartitionKey{Dir: "a"}, 2}}
	want := map[txnKey][]T{}
	for i, it := range items {
		k := keys[i%len(keys)]
		if err := h.add(k, it); err != nil {
			t.Fatal(err)
		}
		want[k] = append(want[k], it)
	}
	collect := func() (func(*T) error, *[]T) {
		var got []T
		return func(v *T) error { got = append(got, *v); return nil }, &got
	}
	fn, got := collect()
	if err := h.take(keys[1], fn); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, want[keys[1]]) {
		t.Fatalf("ended transaction: got %d items back, want %d, or they differ", len(*got), len(want[keys[1]]))
	}
	if h.lists[keys[1]] != nil {
		t.Fatal("the ended transaction is still held")
	}
	fn, got = collect()
	if err := h.takeOpen(fn); err != nil {
		t.Fatal(err)
	}
	// Open transactions come in the order they were first seen.
	if w := append(append([]T{}, want[keys[0]]...), want[keys[2]]...); !reflect.DeepEqual(*got, w) {
		t.Fatalf("open transactions: got %d items back, want %d, or they differ", len(*got), len(w))
	}
	if h.mem != 0 || len(h.lists) != 0 {
		t.Fatalf("after taking everything: mem %d, %d lists", h.mem, len(h.lists))
	}
}

func TestHeldRoundTrip(t *testing.T) {
	for _, budget := range []int64{1, 4096, DefaultHeldBudget} {
		t.Run(fmt.Sprint("rows/budget=", budget), func(t *testing.T) {
			dir := t.TempDir()
			h := newHeld(budget, dir, rowCodec)
			checkHeld(t, h, heldRows())
			checkSpill(t, h.f, h.end, budget, dir, h.close)
		})
		t.Run(fmt.Sprint("entries/budget=", budget), func(t *testing.T) {
			dir := t.TempDir()
			h := newHeld(budget, dir, entryCodec)
			checkHeld(t, h, heldEntryBatches())
			checkSpill(t, h.f, h.end, budget, dir, h.close)
		})
	}
}

// checkSpill checks that a one-byte budget spilled, the default did not,
// and that close leaves dir empty.
func checkSpill(t *testing.T, f *os.File, end int64, budget int64, dir string, close func() error) {
	t.Helper()
	if budget == 1 && (f == nil || end == 0) {
		t.Fatal("a budget smaller than the items wrote nothing to disk")
	}
	if budget == DefaultHeldBudget && f != nil {
		t.Fatalf("a budget larger than the items spilled %d bytes", end)
	}
	if err := close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("close left %d files in the temporary dir", len(left))
	}
}

func TestHeldRefusesTmpInsideInput(t *testing.T) {
	in := t.TempDir()
	err := TmpOutside(filepath.Join(in, "sub"), []*source.Input{{Kind: source.Dir, Path: in, Abs: in}})
	if err == nil {
		t.Fatal("a temporary dir inside the input was accepted")
	}
	h := newHeld(1, filepath.Join(in, "sub"), rowCodec)
	h.refuse = err
	if err := h.add(txnKey{analysis.PartitionKey{Dir: "p"}, 1}, heldRows()[0]); err == nil {
		t.Fatal("spilling into the input was not refused")
	}
	if left, _ := os.ReadDir(in); len(left) != 0 {
		t.Fatal("the refused spill wrote into the input")
	}
}

// TestHeldDecodeRejects cuts and alters encoded items: decoding must fail
// or succeed, never panic or allocate from a damaged count.
func TestHeldDecodeRejects(t *testing.T) {
	var enc []byte
	for _, r := range heldRows() {
		enc = rowCodec.encode(enc, &r)
	}
	for cut := range len(enc) {
		d := heldDecoder{b: enc[:cut]}
		for d.err == nil && len(d.b) > 0 {
			var r analysis.PayloadRecordRow
			rowCodec.decode(&d, &r)
		}
	}
	var eb []byte
	for _, b := range heldEntryBatches() {
		eb = entryCodec.encode(eb, &b)
	}
	for i := range eb {
		bad := append([]byte{}, eb...)
		bad[i] ^= 0xff
		d := heldDecoder{b: bad}
		for d.err == nil && len(d.b) > 0 {
			var b EntryBatch
			entryCodec.decode(&d, &b)
		}
	}
}

func FuzzHeldDecode(f *testing.F) {
	var enc []byte
	for _, r := range heldRows()[:4] {
		enc = rowCodec.encode(enc, &r)
	}
	f.Add(enc, false)
	b := heldEntryBatches()[5]
	f.Add(entryCodec.encode(nil, &b), true)
	f.Fuzz(func(t *testing.T, data []byte, entries bool) {
		if entries {
			fuzzHeldCodec(t, data, entryCodec)
		} else {
			fuzzHeldCodec(t, data, rowCodec)
		}
	})
}

// fuzzHeldCodec decodes data item by item; what decodes must encode and
// decode again to the same item.
func fuzzHeldCodec[T any](t *testing.T, data []byte, c heldCodec[T]) {
	d := heldDecoder{b: data}
	for d.err == nil && len(d.b) > 0 {
		var v T
		c.decode(&d, &v)
		if d.err != nil {
			return
		}
		again := heldDecoder{b: c.encode(nil, &v)}
		var w T
		c.decode(&again, &w)
		if again.err != nil || len(again.b) != 0 || !reflect.DeepEqual(v, w) {
			t.Fatalf("an item decoded from the fuzz input does not survive encode and decode: %v", again.err)
		}
	}
}

// TestScanHeldSpillSameOutput scans inputs with transactions, committed,
// aborted and open, with a budget that spills every held record and with
// the default, and requires identical rows and entries in the same order.
func TestScanHeldSpillSameOutput(t *testing.T) {
	paths := []string{"../../../shared/corpus/thirdparty/v2-aborted-txn-franz"}
	if !testing.Short() {
		paths = append(paths, "../../../shared/corpus/real")
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("corpus missing: %v", err)
		}
	}
	inputs, err := source.Classify(paths)
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		records []analysis.PayloadRecordRow
		entries []EntryBatch
		spilled int64
		txn     map[string]int
	}
	run := func(cfg Config) outcome {
		var o outcome
		o.txn = map[string]int{}
		out := Output{
			Records: func(rs []analysis.PayloadRecordRow) error {
				for _, r := range rs {
					o.txn[r.TxnState]++
				}
				o.records = append(o.records, rs...)
				return nil
			},
			Entries: func(bs []EntryBatch) error {
				for _, b := range bs {
					b.Entries = append([]analysis.RecordEntry(nil), b.Entries...) // reused after return
					b.pending = false
					o.entries = append(o.entries, b)
				}
				return nil
			},
		}
		cfg.Jobs, cfg.TmpDir = 2, t.TempDir()
		res, err := Run(context.Background(), inputs, cfg, out)
		if err != nil {
			t.Fatal(err)
		}
		o.spilled = res.HeldSpilled
		if left, _ := os.ReadDir(cfg.TmpDir); len(left) != 0 {
			t.Fatalf("the scan left %d files in its temporary dir", len(left))
		}
		return o
	}
	for _, mode := range []struct {
		name string
		cfg  Config
	}{
		{"entries", Config{Records: true, Compact: true}},
		{"rows", Config{Records: true, Payload: true, HexFingerprints: true}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			def := run(mode.cfg)
			small := mode.cfg
			small.HeldBudget = 1
			sp := run(small)
			if def.spilled != 0 {
				t.Fatalf("the default budget spilled %d bytes", def.spilled)
			}
			if sp.spilled == 0 {
				t.Fatal("a one-byte budget spilled nothing: the inputs hold no transaction")
			}
			if !reflect.DeepEqual(def.records, sp.records) || !reflect.DeepEqual(def.entries, sp.entries) {
				t.Fatalf("spilling changed the output: %d/%d rows, %d/%d entry batches", len(def.records), len(sp.records), len(def.entries), len(sp.entries))
			}
			t.Logf("%d rows %v, %d entry batches; %d bytes spilled", len(sp.records), sp.txn, len(sp.entries), sp.spilled)
		})
	}
}

// TestHeldManySmallTransactions: a log dir copied from a live broker has
// an open transaction at the tail of many partitions, each holding a few
// records. The budget must count what their chunks take, not only the
// records in them: 20,000 transactions of one row each under 4 MiB stay
// within a few budgets of heap, spill, and come back whole and in order.
func TestHeldManySmallTransactions(t *testing.T) {
	const budget, keys = 4 << 20, 20000
	row := heldRows()[2]
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h := newHeld(budget, t.TempDir(), rowCodec)
	defer h.close()
	for i := range keys {
		r := row
		r.Offset = int64(i)
		if err := h.add(txnKey{analysis.PartitionKey{Dir: fmt.Sprint("p-", i)}, int64(i)}, r); err != nil {
			t.Fatal(err)
		}
		if h.mem > budget {
			t.Fatalf("after %d transactions: %d bytes counted in memory, budget %d", i+1, h.mem, budget)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 4*budget {
		t.Errorf("the heap grew by %d MiB for a %d MiB budget", grew>>20, budget>>20)
	}
	if h.end == 0 {
		t.Fatal("nothing was spilled")
	}
	next := int64(0)
	if err := h.takeOpen(func(r *analysis.PayloadRecordRow) error {
		if r.Offset != next || !reflect.DeepEqual(r.Value, row.Value) {
			t.Fatalf("row %d came back as offset %d", next, r.Offset)
		}
		next++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if next != keys {
		t.Fatalf("%d rows came back, %d were held", next, keys)
	}
}
