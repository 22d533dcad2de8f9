package scan

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"unsafe"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment"
)

// DefaultHeldBudget is the memory kept for the records of transactions
// whose marker has not been read yet when Config.HeldBudget is 0.
const DefaultHeldBudget = 64 << 20

// TmpOutside refuses a temporary dir ("" = the system's) inside a
// directory input: ksleuth never writes into its inputs
// (source.CheckOutput).
func TmpOutside(tmp string, inputs []*source.Input) error {
	return source.CheckOutput(tmp, source.SpillDir, inputs)
}

// heldTxns keeps the records of transactions not yet ended, per partition
// dir and producer, in arrival order, until the marker gives them their
// txn_state. Up to its budget they stay in memory. Beyond it the records
// in memory are moved to a temporary file (created on first need, removed
// by close) and read back when the marker comes: a transaction that never
// ends, the hanging transaction an incident can leave in a partition,
// costs disk, not memory.
//
// Not safe for concurrent use: the collector owns it.
type heldTxns[T any] struct {
	lists  map[txnKey]*heldList[T]
	seq    int64 // first-seen order of the lists, for takeOpen
	mem    int64 // bytes of the lists' chunks and what their items refer to
	budget int64
	tmpDir string
	refuse error // set when tmpDir may not be written (inside an input)
	codec  heldCodec[T]

	f   *os.File
	end int64  // bytes written to f
	buf []byte // encode and read buffer
}

// heldCodec sizes and serializes one item: size is the memory the item
// refers to beyond its own slot in a chunk. decode must reject, never
// panic on, bytes it did not write.
type heldCodec[T any] struct {
	size   func(*T) int64
	encode func([]byte, *T) []byte
	decode func(*heldDecoder, *T)
}

type heldList[T any] struct {
	seq     int64
	spilled []heldExtent // written before mem, in order
	// mem is in chunks of up to heldChunk items: one growing slice would
	// briefly need three times its size each time it doubled.
	mem   [][]T
	bytes int64
}

const heldChunk = 256

type heldExtent struct {
	off, n int64
	count  int
}

func newHeld[T any](budget int64, tmpDir string, codec heldCodec[T]) *heldTxns[T] {
	if budget <= 0 {
		budget = DefaultHeldBudget
	}
	return &heldTxns[T]{lists: map[txnKey]*heldList[T]{}, budget: budget, tmpDir: tmpDir, codec: codec}
}

// add holds v for the transaction of key.
func (h *heldTxns[T]) add(key txnKey, v T) error {
	l := h.lists[key]
	if l == nil {
		l = &heldList[T]{seq: h.seq}
		h.seq++
		h.lists[key] = l
	}
	// A transaction's first chunk starts small and doubles up to
	// heldChunk: a log dir copied from a live broker has an open
	// transaction at the tail of many partitions, each holding a few
	// records. The capacity is what is counted against the budget.
	switch k := len(l.mem); {
	case k == 0:
		size := 4
		if len(l.spilled) > 0 { // a large transaction, spilled before
			size = heldChunk
		}
		l.mem = append(l.mem, make([]T, 0, size))
		h.grow(l, int64(size))
	case len(l.mem[k-1]) < cap(l.mem[k-1]):
	case cap(l.mem[k-1]) < heldChunk: // 4, 8, ... 256
		old := l.mem[k-1]
		l.mem[k-1] = append(make([]T, 0, 2*cap(old)), old...)
		h.grow(l, int64(cap(old)))
	default:
		l.mem = append(l.mem, make([]T, 0, heldChunk))
		h.grow(l, heldChunk)
	}
	c := &l.mem[len(l.mem)-1]
	*c = append(*c, v)
	n := h.codec.size(&v)
	l.bytes += n
	h.mem += n
	if h.mem > h.budget {
		return h.spill()
	}
	return nil
}

// grow counts n more (or fewer) item slots of l's chunks.
func (h *heldTxns[T]) grow(l *heldList[T], n int64) {
	n *= int64(unsafe.Sizeof(*new(T)))
	l.bytes += n
	h.mem += n
}

// heldWriteBuf is how much spilled data is gathered before a write.
const heldWriteBuf = 1 << 20

// spill moves the in-memory items of every transaction to the file, a
// chunk an extent: all of them, so that the next spill is a budget's
// worth of records away (choosing one transaction at a time cost a pass
// over all of them for each record added past the budget).
func (h *heldTxns[T]) spill() error {
	if h.f == nil {
		if h.refuse != nil {
			return h.refuse
		}
		f, err := os.CreateTemp(h.tmpDir, "ksleuth-txn-*.held")
		if err != nil {
			return fmt.Errorf("scan: holding the records of unfinished transactions: %w", err)
		}
		h.f = f
	}
	b := h.buf[:0]
	start := h.end // file offset of b[0]
	write := func() error {
		if _, err := h.f.WriteAt(b, start); err != nil {
			return fmt.Errorf("scan: holding the records of unfinished transactions: %w", err)
		}
		start += int64(len(b))
		b = b[:0]
		return nil
	}
	for _, l := range h.lists {
		for _, c := range l.mem {
			from := len(b)
			for i := range c {
				b = h.codec.encode(b, &c[i])
			}
			l.spilled = append(l.spilled, heldExtent{off: start + int64(from), n: int64(len(b) - from), count: len(c)})
			h.end += int64(len(b) - from)
			if len(b) >= heldWriteBuf {
				if err := write(); err != nil {
					return err
				}
			}
		}
		h.mem -= l.bytes
		l.mem, l.bytes = nil, 0
	}
	err := write()
	h.buf = b[:0]
	return err
}

// take calls fn with every item held for key, in the order added, and
// forgets them. fn may keep what the item holds: items read back from
// the file are decoded into memory of their own.
func (h *heldTxns[T]) take(key txnKey, fn func(*T) error) error {
	l := h.lists[key]
	if l == nil {
		return nil
	}
	delete(h.lists, key)
	h.mem -= l.bytes
	for _, x := range l.spilled {
		if err := h.readExtent(x, fn); err != nil {
			return err
		}
	}
	for _, c := range l.mem {
		for i := range c {
			if err := fn(&c[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (h *heldTxns[T]) readExtent(x heldExtent, fn func(*T) error) error {
	if x.n > math.MaxInt32 {
		return fmt.Errorf("scan: held transaction records: extent of %d bytes", x.n)
	}
	h.buf = slices.Grow(h.buf[:0], int(x.n))[:x.n]
	if _, err := h.f.ReadAt(h.buf, x.off); err != nil {
		return fmt.Errorf("scan: reading back held transaction records: %w", err)
	}
	d := heldDecoder{b: h.buf}
	var v T
	for range x.count {
		v = *new(T)
		h.codec.decode(&d, &v)
		if d.err != nil {
			return fmt.Errorf("scan: reading back held transaction records at byte %d of %s: %w", x.off, h.f.Name(), d.err)
		}
		if err := fn(&v); err != nil {
			return err
		}
	}
	if len(d.b) != 0 {
		return fmt.Errorf("scan: reading back held transaction records at byte %d of %s: %d bytes left over", x.off, h.f.Name(), len(d.b))
	}
	return nil
}

// takeOpen takes the items of every key still held, keys in the order
// their first item was added.
func (h *heldTxns[T]) takeOpen(fn func(*T) error) error {
	type kl struct {
		k   txnKey
		seq int64
	}
	keys := make([]kl, 0, len(h.lists))
	for k, l := range h.lists {
		keys = append(keys, kl{k, l.seq})
	}
	slices.SortFunc(keys, func(a, b kl) int { return cmp.Compare(a.seq, b.seq) })
	for _, k := range keys {
		if err := h.take(k.k, fn); err != nil {
			return err
		}
	}
	return nil
}

// close removes the temporary file, if any.
func (h *heldTxns[T]) close() error {
	if h.f == nil {
		return nil
	}
	name := h.f.Name()
	err := errors.Join(h.f.Close(), os.Remove(name))
	h.f = nil
	return err
}

// ---- encoding ----

// heldDecoder reads what the append functions below wrote; the first
// malformed field sets err and every later read returns zero values.
type heldDecoder struct {
	b   []byte
	err error
}

var errHeldCorrupt = errors.New("malformed held record")

func appendHeldBytes(b, v []byte) []byte {
	if v == nil {
		return binary.AppendVarint(b, -1)
	}
	return append(binary.AppendVarint(b, int64(len(v))), v...)
}

func appendHeldString(b []byte, s string) []byte {
	return append(binary.AppendVarint(b, int64(len(s))), s...)
}

func appendHeldBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func (d *heldDecoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errHeldCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *heldDecoder) int32() int32 {
	v := d.varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail()
		return 0
	}
	return int32(v)
}

func (d *heldDecoder) fail() {
	if d.err == nil {
		d.err = errHeldCorrupt
	}
}

// raw returns the next n bytes (a view of the buffer).
func (d *heldDecoder) raw(n int64) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > int64(len(d.b)) {
		d.fail()
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *heldDecoder) bytes() []byte {
	n := d.varint()
	if n == -1 {
		return nil
	}
	v := d.raw(n)
	if v == nil {
		return nil
	}
	return append([]byte{}, v...)
}

func (d *heldDecoder) string() string { return string(d.raw(d.varint())) }

func (d *heldDecoder) bool() bool {
	v := d.raw(1)
	if v == nil {
		return false
	}
	if v[0] > 1 {
		d.fail()
	}
	return v[0] == 1
}

// rowCodec serializes record rows (Config.Records).
var rowCodec = heldCodec[analysis.PayloadRecordRow]{
	// What a row holds beyond its own slot: the timestamp, the
	// fingerprint's digits, the payload.
	size: func(r *analysis.PayloadRecordRow) int64 {
		n := int64(8 + len(r.Fingerprint) + len(r.Key) + len(r.Value))
		for _, h := range r.Headers {
			n += int64(unsafe.Sizeof(h)) + int64(len(h.Key)+len(h.Value))
		}
		return n
	},
	encode: func(b []byte, r *analysis.PayloadRecordRow) []byte {
		b = binary.AppendVarint(b, int64(r.Input))
		b = appendHeldString(b, r.Source)
		b = appendHeldString(b, r.Topic)
		b = binary.AppendVarint(b, int64(r.Partition))
		b = appendHeldString(b, r.Segment)
		b = appendHeldString(b, r.Dir)
		b = binary.AppendVarint(b, r.BatchPosition)
		b = binary.AppendVarint(b, r.Offset)
		b = appendHeldBool(b, r.Timestamp != nil)
		if r.Timestamp != nil {
			b = binary.AppendVarint(b, *r.Timestamp)
		}
		b = append(b, heldTimestampType(r.TimestampType))
		b = binary.AppendVarint(b, r.ProducerID)
		for _, v := range [...]int32{r.ProducerEpoch, r.Sequence, r.KeySize, r.ValueSize, r.HeaderCount} {
			b = binary.AppendVarint(b, int64(v))
		}
		b = appendHeldString(b, r.Fingerprint)
		b = append(b, r.FP[:]...)
		b = appendHeldBool(b, r.HasFP)
		b = appendHeldBool(b, r.SoleCopy)
		b = appendHeldString(b, r.TxnState)
		b = appendHeldBool(b, r.IsControl)
		b = appendHeldBool(b, r.Damaged)
		b = appendHeldBytes(b, r.Key)
		b = appendHeldBytes(b, r.Value)
		b = appendHeldBool(b, r.Headers != nil)
		b = binary.AppendVarint(b, int64(len(r.Headers)))
		for _, h := range r.Headers {
			b = appendHeldString(b, h.Key)
			b = appendHeldBytes(b, h.Value)
		}
		return b
	},
	decode: func(d *heldDecoder, r *analysis.PayloadRecordRow) {
		r.Input = d.int32()
		r.Source = d.string()
		r.Topic = d.string()
		r.Partition = d.int32()
		r.Segment = d.string()
		r.Dir = d.string()
		r.BatchPosition = d.varint()
		r.Offset = d.varint()
		if d.bool() {
			ts := d.varint()
			r.Timestamp = &ts
		}
		if p := d.raw(1); p != nil {
			r.TimestampType = segment.TimestampType(int8(p[0])).String()
		}
		r.ProducerID = d.varint()
		for _, p := range [...]*int32{&r.ProducerEpoch, &r.Sequence, &r.KeySize, &r.ValueSize, &r.HeaderCount} {
			*p = d.int32()
		}
		r.Fingerprint = d.string()
		copy(r.FP[:], d.raw(16))
		r.HasFP = d.bool()
		r.SoleCopy = d.bool()
		r.TxnState = d.string()
		r.IsControl = d.bool()
		r.Damaged = d.bool()
		r.Key = d.bytes()
		r.Value = d.bytes()
		hasHeaders := d.bool()
		n := d.varint()
		if n < 0 || n > int64(len(d.b)) { // each header takes at least two bytes
			d.fail()
			return
		}
		if hasHeaders {
			r.Headers = make([]analysis.Header, n)
		} else if n != 0 {
			d.fail()
			return
		}
		for i := range r.Headers {
			r.Headers[i] = analysis.Header{Key: d.string(), Value: d.bytes()}
		}
	},
}

// entryBytes is the encoded size of one analysis.RecordEntry.
const entryBytes = 16 + 8 + 8 + 4 + 1 + 1

// entryCodec serializes the batches of entries of Config.Compact.
var entryCodec = heldCodec[EntryBatch]{
	size: func(eb *EntryBatch) int64 {
		return int64(cap(eb.Entries)) * int64(unsafe.Sizeof(analysis.RecordEntry{}))
	},
	encode: func(b []byte, eb *EntryBatch) []byte {
		b = binary.AppendVarint(b, int64(eb.Input))
		b = appendHeldString(b, eb.Source)
		b = appendHeldString(b, eb.Topic)
		b = binary.AppendVarint(b, int64(eb.Partition))
		b = appendHeldString(b, eb.Segment)
		b = binary.AppendVarint(b, eb.BatchPosition)
		b = binary.AppendVarint(b, eb.ProducerID)
		b = binary.AppendVarint(b, int64(eb.ProducerEpoch))
		b = appendHeldBool(b, eb.Damaged)
		b = appendHeldBool(b, eb.LogAppendTime)
		b = appendHeldBool(b, eb.SoleCopy)
		b = appendHeldBool(b, eb.pending)
		b = binary.AppendVarint(b, int64(len(eb.Entries)))
		for i := range eb.Entries {
			e := &eb.Entries[i]
			b = append(b, e.Fingerprint[:]...)
			b = binary.LittleEndian.AppendUint64(b, uint64(e.Offset))
			b = binary.LittleEndian.AppendUint64(b, uint64(e.Timestamp))
			b = binary.LittleEndian.AppendUint32(b, uint32(e.Sequence))
			b = append(b, byte(e.Txn))
			b = appendHeldBool(b, e.Control)
		}
		return b
	},
	decode: func(d *heldDecoder, eb *EntryBatch) {
		eb.Input = d.int32()
		eb.Source = d.string()
		eb.Topic = d.string()
		eb.Partition = d.int32()
		eb.Segment = d.string()
		eb.BatchPosition = d.varint()
		eb.ProducerID = d.varint()
		eb.ProducerEpoch = d.int32()
		eb.Damaged = d.bool()
		eb.LogAppendTime = d.bool()
		eb.SoleCopy = d.bool()
		eb.pending = d.bool()
		n := d.varint()
		if n < 0 || n > int64(len(d.b))/entryBytes {
			d.fail()
			return
		}
		if n == 0 {
			return
		}
		eb.Entries = entrySlices.get(int(n))[:n]
		for i := range eb.Entries {
			p := d.raw(entryBytes)
			if p == nil {
				return
			}
			e := &eb.Entries[i]
			copy(e.Fingerprint[:], p)
			e.Offset = int64(binary.LittleEndian.Uint64(p[16:]))
			e.Timestamp = int64(binary.LittleEndian.Uint64(p[24:]))
			e.Sequence = int32(binary.LittleEndian.Uint32(p[32:]))
			e.Txn = analysis.TxnState(p[36])
			if p[36] > byte(analysis.TxnOpen) || p[37] > 1 {
				d.fail()
			}
			e.Control = p[37] == 1
		}
	},
}

// heldTimestampType is a record row's timestamp type as the one byte of
// its segment.TimestampType, so that the rows read back share the three
// strings instead of allocating one each.
func heldTimestampType(s string) byte {
	for _, t := range [...]segment.TimestampType{segment.CreateTime, segment.LogAppendTime} {
		if s == t.String() {
			return byte(t)
		}
	}
	none := segment.NoTimestampType
	return byte(none)
}
