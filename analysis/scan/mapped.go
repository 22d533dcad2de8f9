package scan

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"unsafe"
)

// errNoMap: the file is read with read(2) instead of being mapped.
var errNoMap = errors.New("scan: file not mapped")

// mappedInput is a segment file mapped into memory: the reader frames and
// decodes batches straight from the pages, and the hasher reads the same
// pages, so the file's bytes are never copied. Progress is reported as
// the reader advances.
type mappedInput struct {
	data     []byte
	reported int64
	progress func(int64)
}

func (m *mappedInput) Read([]byte) (int, error) {
	return 0, errors.New("scan: a mapped input is read through segment.NewReaderBytes")
}

// advance reports progress up to byte off.
func (m *mappedInput) advance(off int64) {
	if d := off - m.reported; d > 0 && m.progress != nil {
		m.progress(d)
		m.reported = off
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
