package scan

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"unsafe"
)

// errNoMap: the file is read with read(2) instead of being mapped.
var errNoMap = errors.New("scan: file not mapped")

// errFault: a memory fault inside a mapped file, which shrank while it was
// read.
var errFault = errors.New("the file changed while it was read")

// mappedInput is a segment file mapped into memory: the reader frames and
// decodes batches straight from the pages, and the hasher reads the same
// pages, so the file's bytes are never copied. Progress is reported as
// the reader advances. Pages both have left behind are released as they
// go (dropPages), and so are pages between the two when one is far ahead
// of the other, so a mapped segment of any size adds some tens of MiB to
// the process's resident set, not its size.
type mappedInput struct {
	data     []byte
	reported int64
	progress func(int64)

	touched        int64        // bytes before this have been touched (reader only)
	touchSink      byte         // keeps the touching loads
	noTouch        bool         // the pages are populated ahead instead (same.go)
	pass           *readPass    // later copies compared behind the reader (samepass.go)
	parsed, hashed atomic.Int64 // how far the reader and the hasher are
	dropped        atomic.Int64 // pages before this were released
	gapDropped     atomic.Int64 // pages of the gap before this were released
	mu             sync.Mutex   // serialises releases
}

// Pages are released in steps of dropStep, dropLag behind the slower of
// reader and hasher (more than the 1 MiB the reader may look back for an
// overlapping batch).
const (
	dropStep = 16 << 20
	dropLag  = 4 << 20
)

// maxLead is how far the reader and the hasher may be apart before the
// pages between them are released too. On uncompressed data the reader is
// about twice as fast as SHA-256, on compressed data the hasher is the
// faster; every page between the two stayed resident, and one 1 GiB
// segment (Kafka's default size) held half a GiB of its pages at the
// peak. The slower one faults the released pages back in from the page
// cache (a minor fault per 64 KiB: some milliseconds per GiB). Making the
// faster one wait instead left it queued behind the other at every wake,
// and a scan of several files took 5-10 % longer.
const maxLead = 32 << 20

// The reader touches a byte of every touchStep up to touchAhead ahead of
// it. A page of the mapping has no page-table entry until it is first
// touched (the kernel then maps the 16 pages around it from the page
// cache), and the CPU drops a prefetch of an address without one: the
// reader's prefetch of the next batch (segment's Reader.ahead) did
// nothing at the start of each 64 KiB, and the batch's CRC, the first
// pass over its bytes, waited for them from memory (8 % of an
// uncompressed scan's samples with --hash none, 5 % with the touch). The
// faults are the same in number, only earlier.
const (
	touchAhead = 256 << 10
	touchStep  = 64 << 10
)

func newMappedInput(data []byte, progress func(int64), hashing bool) *mappedInput {
	m := &mappedInput{data: data, progress: progress}
	if !hashing {
		m.hashed.Store(int64(len(data)))
	}
	return m
}

func (m *mappedInput) Read([]byte) (int, error) {
	return 0, errors.New("scan: a mapped input is read through segment.NewReaderBytes")
}

// advance records that the reader is at byte off: progress, and release.
func (m *mappedInput) advance(off int64) {
	if d := off - m.reported; d > 0 {
		if m.progress != nil {
			m.progress(d)
		}
		m.reported = off
	}
	m.parsed.Store(off)
	if m.pass != nil {
		m.pass.upTo(m.data, off)
	}
	if m.noTouch {
		m.release()
		return
	}
	if to := min(off+touchAhead, int64(len(m.data))); m.touched < to {
		var x byte
		for p := max(m.touched, off-off%touchStep); p < to; p += touchStep {
			x += m.data[p]
		}
		m.touchSink += x
		m.touched = to
	}
	m.release()
}

// hashedTo records that the hasher has read the first off bytes.
func (m *mappedInput) hashedTo(off int64) {
	m.hashed.Store(off)
	m.release()
}

// release drops the pages both reader and hasher are done with, and those
// of the gap between them beyond maxLead/2 ahead of the slower one.
func (m *mappedInput) release() {
	p, h := m.parsed.Load(), m.hashed.Load()
	lo, hi := min(p, h), max(p, h)
	done := lo - dropLag
	done -= done % dropStep
	gapTo := hi - dropLag
	gapTo -= gapTo % dropStep
	gapFrom := lo + maxLead/2
	gapFrom += (dropStep - gapFrom%dropStep) % dropStep
	gap := hi-lo > maxLead && gapTo > max(gapFrom, m.gapDropped.Load())
	if done <= m.dropped.Load() && !gap {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if from := m.dropped.Load(); done > from {
		dropPages(m.data[from:done])
		m.dropped.Store(done)
	}
	if from := max(gapFrom, m.gapDropped.Load(), m.dropped.Load()); gap && gapTo > from {
		dropPages(m.data[from:gapTo])
		m.gapDropped.Store(gapTo)
	}
}

// guardFaults runs fn with memory faults turned into panics, and recovers
// a fault inside mapped as an error: a mapped file that shrinks while it
// is read (someone truncating the evidence under ksleuth) must be an
// unreadable file, not a crash (SIGBUS). Any other panic, a fault
// elsewhere included, goes on.
func guardFaults(mapped []byte, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			// A fault under SetPanicOnFault is a runtime.Error with the
			// faulting address.
			re, ok := r.(interface {
				runtime.Error
				Addr() uintptr
			})
			if !ok || len(mapped) == 0 {
				panic(r)
			}
			base := uintptr(unsafe.Pointer(unsafe.SliceData(mapped)))
			if a := re.Addr(); a < base || a-base >= uintptr(len(mapped)) {
				panic(r)
			}
			err = fmt.Errorf("%w (memory fault at %#x)", errFault, re.Addr())
		}
	}()
	return fn()
}
