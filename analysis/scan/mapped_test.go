//go:build unix

package scan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

var mappedSink byte

// TestGuardFaultsTruncatedMapping: a mapped file truncated under the
// reader (evidence changed mid-scan) faults on the next page touched;
// guardFaults turns that into an error instead of a SIGBUS crash.
func TestGuardFaultsTruncatedMapping(t *testing.T) {
	p := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(p, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, unmap, err := mapFile(f, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer unmap()
	sum := func() error {
		for i := 0; i < len(data); i += 4096 {
			mappedSink += data[i]
		}
		return nil
	}
	if err := guardFaults(data, sum); err != nil {
		t.Fatalf("intact mapping: %v", err)
	}
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	err = guardFaults(data, sum)
	if err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("truncated mapping: %v, want the file-changed error", err)
	}
	// A fault outside the mapping is a bug, not changed evidence.
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Error("a nil dereference was swallowed")
			}
		}()
		var p *int
		guardFaults(data, func() error { return fmt.Errorf("%d", *p) })
	}()
	// Other panics are not swallowed.
	defer func() {
		if r := recover(); r != "boom" {
			t.Errorf("recovered %v, want the original panic", r)
		}
	}()
	guardFaults(data, func() error { panic("boom") })
}

// TestMappedRelease: pages are released in dropStep steps, dropLag
// behind the slower of reader and hasher, and never ahead of either.
func TestMappedRelease(t *testing.T) {
	data := make([]byte, 80<<20) // zeros: a released page reads back as zeros
	m := newMappedInput(data, nil, true)
	m.advance(30 << 20)
	if d := m.dropped.Load(); d != 0 {
		t.Fatalf("released %d bytes before the hasher started", d)
	}
	m.hashedTo(20 << 20) // slower of the two: 20 MiB - 4 MiB lag = 16 MiB
	if d := m.dropped.Load(); d != 16<<20 {
		t.Fatalf("released %d MiB, want 16", d>>20)
	}
	m.hashedTo(80 << 20)
	m.advance(60 << 20) // now the reader is slower: 56 MiB, down to 48
	if d := m.dropped.Load(); d != 48<<20 {
		t.Fatalf("released %d MiB, want 48", d>>20)
	}
	n := newMappedInput(data, nil, false) // not hashing: only the reader counts
	n.advance(40 << 20)
	if d := n.dropped.Load(); d != 32<<20 {
		t.Fatalf("without hashing released %d MiB, want 32", d>>20)
	}
}

// TestMappedGap: when reader and hasher are more than maxLead apart, the
// pages between them are released too, in dropStep steps, from maxLead/2
// ahead of the slower to dropLag behind the faster, each range once.
func TestMappedGap(t *testing.T) {
	const mib = 1 << 20
	data := make([]byte, 200*mib)
	check := func(m *mappedInput, dropped, gap int64) {
		t.Helper()
		if d, g := m.dropped.Load(), m.gapDropped.Load(); d != dropped*mib || g != gap*mib {
			t.Fatalf("released up to %d MiB and the gap up to %d MiB, want %d and %d", d/mib, g/mib, dropped, gap)
		}
	}
	near := newMappedInput(data, nil, true)
	near.advance(30 * mib) // within maxLead: nothing between them goes
	check(near, 0, 0)

	m := newMappedInput(data, nil, true)
	m.advance(100 * mib) // the hasher has not started: 16 MiB ahead of it to 96
	check(m, 0, 96)
	m.hashedTo(10 * mib) // nothing new: the gap up to 96 is gone already
	check(m, 0, 96)
	m.advance(150 * mib) // the gap grows: 96 to 144
	check(m, 0, 144)
	m.hashedTo(150 * mib) // caught up: everything behind both, to 144
	check(m, 144, 144)

	h := newMappedInput(data, nil, true) // the hasher ahead (compressed data)
	h.hashedTo(200 * mib)
	check(h, 0, 192)
	h.advance(200 * mib)
	check(h, 192, 192)
}

// TestGuardFaultsInCRCFold: a batch's CRC-32C is folded in assembly
// (segment/crc32c_amd64.s) straight from the mapped pages; a file
// truncated after its first page faults inside that code, and the fault
// is still recovered as changed evidence, not a crash.
func TestGuardFaultsInCRCFold(t *testing.T) {
	value := make([]byte, 1<<20)
	for i := range value {
		value[i] = byte(i * 31)
	}
	seg := segtest.Batch{Magic: 2, Records: []segtest.Record{{Key: []byte("k"), Value: value}}}.Encode()
	p := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(p, seg, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, unmap, err := mapFile(f, int64(len(seg)))
	if err != nil {
		t.Fatal(err)
	}
	defer unmap()
	read := func() error {
		r := segment.NewReaderBytes(data, segment.Options{Path: p})
		defer r.Close()
		for r.Next() {
			if r.Batch() == nil {
				return fmt.Errorf("finding: %v", r.Finding())
			}
			if !r.Batch().CRCValid {
				return fmt.Errorf("CRC mismatch")
			}
		}
		return nil
	}
	if err := guardFaults(data, read); err != nil {
		t.Fatalf("intact file: %v", err)
	}
	// Keep the header's page: framing succeeds, the CRC pass faults.
	if err := os.Truncate(p, 4096); err != nil {
		t.Fatal(err)
	}
	dropPages(data) // as if the reader had never seen the pages
	err = guardFaults(data, read)
	if err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("truncated under the reader: %v, want the file-changed error", err)
	}
}

// TestMappedTouchAhead: the reader's touch runs touchAhead ahead of it,
// never past the data, and reaches its end.
func TestMappedTouchAhead(t *testing.T) {
	data := make([]byte, 1<<20+123)
	m := newMappedInput(data, nil, false)
	for off := int64(0); off <= int64(len(data)); off += 40000 {
		m.advance(off)
		if want := min(off+touchAhead, int64(len(data))); m.touched != want {
			t.Fatalf("at %d: touched to %d, want %d", off, m.touched, want)
		}
	}
	m.advance(int64(len(data)))
	if m.touched != int64(len(data)) {
		t.Fatalf("touched to %d of %d", m.touched, len(data))
	}
}
