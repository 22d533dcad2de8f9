//go:build unix

package scan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	m.advance(60 << 20)
	if d := m.dropped.Load(); d != 0 {
		t.Fatalf("released %d bytes before the hasher started", d)
	}
	m.hashedTo(30 << 20) // slower of the two: 30 MiB - 4 MiB lag, down to 16 MiB
	if d := m.dropped.Load(); d != 16<<20 {
		t.Fatalf("released %d MiB, want 16", d>>20)
	}
	m.hashedTo(80 << 20) // now the reader at 60 MiB is slower: 56 MiB down to 48
	if d := m.dropped.Load(); d != 48<<20 {
		t.Fatalf("released %d MiB, want 48", d>>20)
	}
	n := newMappedInput(data, nil, false) // not hashing: only the reader counts
	n.advance(40 << 20)
	if d := n.dropped.Load(); d != 32<<20 {
		t.Fatalf("without hashing released %d MiB, want 32", d>>20)
	}
}
