//go:build unix

package scan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	m.advance(30 << 20) // within maxLead of the hasher: no wait
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

// TestMappedLead: the reader waits while it is more than maxLead ahead of
// the hasher, and goes on as soon as the hasher catches up or stops.
func TestMappedLead(t *testing.T) {
	data := make([]byte, 100<<20)
	m := newMappedInput(data, nil, true)
	advanced := func(off int64) chan struct{} {
		done := make(chan struct{})
		go func() { m.advance(off); close(done) }()
		return done
	}
	finished := func(done chan struct{}) bool {
		select {
		case <-done:
			return true
		case <-time.After(50 * time.Millisecond):
			return false
		}
	}
	m.hashedTo(10 << 20)
	done := advanced(10<<20 + maxLead + 1)
	if finished(done) {
		t.Fatal("the reader went on more than maxLead ahead of the hasher")
	}
	m.hashedTo(11 << 20) // exactly maxLead behind now
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the reader still waits after the hasher caught up")
	}
	done = advanced(int64(len(data)))
	if finished(done) {
		t.Fatal("the reader went to the end with the hasher at 11 MiB")
	}
	m.hashDone() // the hasher stopped early (an error): no more waiting
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the reader still waits after the hasher stopped")
	}

	// The other way round: the hasher waits for a slower reader (a
	// compressed segment), until it catches up, stops, or the scan ends.
	h := newMappedInput(data, nil, true)
	hashed := func(ctx context.Context, off int64) chan struct{} {
		done := make(chan struct{})
		go func() { h.hashedTo(off); h.waitReader(ctx, off); close(done) }()
		return done
	}
	h.advance(5 << 20)
	done = hashed(context.Background(), 5<<20+maxLead+1)
	if finished(done) {
		t.Fatal("the hasher went on more than maxLead ahead of the reader")
	}
	h.advance(6 << 20)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the hasher still waits after the reader caught up")
	}
	done = hashed(context.Background(), 80<<20)
	if finished(done) {
		t.Fatal("the hasher went to 80 MiB with the reader at 6 MiB")
	}
	h.readDone()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the hasher still waits after the reader finished")
	}
	ctx, cancel := context.WithCancel(context.Background())
	g := newMappedInput(data, nil, true)
	g.hashedTo(90 << 20)
	stopped := make(chan struct{})
	go func() { g.waitReader(ctx, 90<<20); close(stopped) }()
	cancel()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the hasher still waits after the scan was cancelled")
	}
}
