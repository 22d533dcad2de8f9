package scan

import (
	"context"
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

// mappedInput is a segment file mapped into memory: the reader frames and
// decodes batches straight from the pages, and the hasher reads the same
// pages, so the file's bytes are never copied. Progress is reported as
// the reader advances. Pages both have left behind are released as they
// go (dropPages), and whichever of the two is maxLead ahead of the other
// waits, so a mapped segment of any size adds some tens of MiB to the
// process's resident set, not its size.
type mappedInput struct {
	data     []byte
	reported int64
	progress func(int64)

	parsed, hashed atomic.Int64  // how far the reader and the hasher are
	dropped        atomic.Int64  // pages before this were released
	mu             sync.Mutex    // serialises releases
	hashMoved      chan struct{} // a token each time the hasher advances
	readMoved      chan struct{} // and each time the reader does
}

// Pages are released in steps of dropStep, dropLag behind the slower of
// reader and hasher (more than the 1 MiB the reader may look back for an
// overlapping batch).
const (
	dropStep = 16 << 20
	dropLag  = 4 << 20
)

// maxLead is how far the reader and the hasher may run ahead of each
// other: every page between the two stays resident. On uncompressed data
// the reader is about twice as fast as SHA-256, on compressed data the
// hasher is faster; without a bound, one 1 GiB uncompressed segment
// (Kafka's default size) held half a GiB of its pages at the peak.
// Waiting costs no wall time, since the file is done only when both are.
const maxLead = 32 << 20

func newMappedInput(data []byte, progress func(int64), hashing bool) *mappedInput {
	m := &mappedInput{data: data, progress: progress, hashMoved: make(chan struct{}, 1), readMoved: make(chan struct{}, 1)}
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
	m.release()
	wake(m.readMoved)
	// The hasher always ends at the end of the data, even when it stops
	// early (hashDone), so this wait ends.
	for off-m.hashed.Load() > maxLead {
		<-m.hashMoved
	}
}

// readDone records that the reader is done with the file, at its end or
// not: the hasher no longer waits for it.
func (m *mappedInput) readDone() {
	m.parsed.Store(int64(len(m.data)))
	m.release()
	wake(m.readMoved)
}

// waitReader is the hasher's wait while it is maxLead ahead of the reader
// at off; it ends early when ctx is done.
func (m *mappedInput) waitReader(ctx context.Context, off int64) {
	for off-m.parsed.Load() > maxLead {
		select {
		case <-m.readMoved:
		case <-ctx.Done():
			return
		}
	}
}

// wake leaves a token in c unless one is already there.
func wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// hashedTo records that the hasher has read the first off bytes.
func (m *mappedInput) hashedTo(off int64) {
	m.hashed.Store(off)
	m.release()
	wake(m.hashMoved)
}

// hashDone records that the hasher stopped, at the end or early (an error,
// a cancelled scan): the reader no longer waits for it.
func (m *mappedInput) hashDone() { m.hashedTo(int64(len(m.data))) }

// release drops the pages both reader and hasher are done with.
func (m *mappedInput) release() {
	done := min(m.parsed.Load(), m.hashed.Load()) - dropLag
	done -= done % dropStep
	if done <= m.dropped.Load() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if from := m.dropped.Load(); done > from {
		dropPages(m.data[from:done])
		m.dropped.Store(done)
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
			err = fmt.Errorf("the file changed while it was read (memory fault at %#x)", re.Addr())
		}
	}()
	return fn()
}
