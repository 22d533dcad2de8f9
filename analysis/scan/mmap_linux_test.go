//go:build linux

package scan

import (
	"bytes"
	"crypto/sha256"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMappedGapRefault: pages released between reader and hasher read
// back the file's own bytes when the slower one reaches them (they are
// faulted in again from the page cache), so the hash and the records of a
// big segment are those of the file. Also checks that the release really
// happened: the process's resident set shrinks by most of the 64 MiB.
func TestMappedGapRefault(t *testing.T) {
	const size = 96 << 20
	content := make([]byte, size)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < size; i += 8 {
		v := rng.Uint64()
		for k := range 8 {
			content[i+k] = byte(v >> (8 * k))
		}
	}
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, unmap, err := mapFile(f, size)
	if err != nil {
		t.Fatal(err)
	}
	defer unmap()
	// Fault everything in, as a reader running ahead would.
	if !bytes.Equal(data, content) {
		t.Fatal("the mapping does not read the file")
	}
	before := resident(t)
	m := newMappedInput(data, nil, true)
	m.advance(size) // the reader at the end, the hasher at 0: 16 MiB to 80 MiB go
	if g := m.gapDropped.Load(); g != 80<<20 {
		t.Fatalf("gap released up to %d MiB, want 80", g>>20)
	}
	if after := resident(t); after > before-(48<<20)/os.Getpagesize() {
		t.Errorf("%d pages resident after releasing 64 MiB, %d before", after, before)
	}
	want := sha256.Sum256(content)
	if got := sha256.Sum256(data); got != want {
		t.Fatal("the mapping's bytes changed after the release")
	}
}

// resident is the process's resident pages (/proc/self/statm), file
// mappings included. (mincore(2) would not do: it tells whether a page is
// in the page cache, which a released page of a file still is.)
func resident(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		t.Fatalf("statm: %q", b)
	}
	n, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatal(err)
	}
	return n
}
