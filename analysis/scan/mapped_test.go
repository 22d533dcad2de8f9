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
