//go:build linux

package scan

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestEqualReleasingPeers: one pass over the first copy compares it with
// the copy whose turn it is and with the later copies (peers). Truth, for
// files of three and a half comparison steps with a byte changed in some:
// each copy's verdict is whether it has the first copy's bytes, whichever
// others differ and where, and the pass stops only once all differ.
func TestEqualReleasingPeers(t *testing.T) {
	const size = 3*sameStep + sameStep/2
	base := make([]byte, size)
	for i := range base {
		base[i] = byte(i * 7 / 5)
	}
	dir := t.TempDir()
	mapped := func(name string, flip int) []byte { d, _ := mapCopy(t, filepath.Join(dir, name), base, flip); return d }
	peer := func(name string, flip int) *peerFile {
		_, p := mapCopy(t, filepath.Join(dir, name), base, flip)
		return p
	}
	ref := mapped("ref", -1)
	for i, c := range []struct {
		copyFlip  int   // -1: the copy is the same bytes
		peerFlips []int // the same for each peer
	}{
		{-1, []int{-1, -1}},
		{10, []int{-1, 2*sameStep + 5}},
		{-1, []int{size - 1, 0}},
		{sameStep, []int{sameStep + 1, size - 1}},
		{0, []int{3 * sameStep, -1}},
	} {
		m := newMappedInput(mapped("copy"+strconv.Itoa(i), c.copyFlip), nil, false)
		var peers []*peerFile
		for k, fl := range c.peerFlips {
			peers = append(peers, peer("peer"+strconv.Itoa(i)+"-"+strconv.Itoa(k), fl))
		}
		if got := equalReleasing(m, ref, peers); got != (c.copyFlip < 0) {
			t.Errorf("case %d: copy same %v, want %v", i, got, c.copyFlip < 0)
		}
		for k, p := range peers {
			if p.same != (c.peerFlips[k] < 0) {
				t.Errorf("case %d: peer %d same %v, want %v", i, k, p.same, c.peerFlips[k] < 0)
			}
		}
		if m.noTouch {
			t.Errorf("case %d: the copy's mapping is left not touching", i)
		}
	}
}

// TestReadPassPeers: the later copies are compared a step behind the
// reader, as it advances batch by batch, and what it leaves is compared
// when it stops. Truth, for files of two and a half steps with a byte
// changed in some (in a whole step, in the last partial step, at the last
// byte): each copy is equal exactly when it has the first copy's bytes,
// whether the reader reads to the end or stops early.
func TestReadPassPeers(t *testing.T) {
	const size = 2*passStep + passStep/2
	base := make([]byte, size)
	for i := range base {
		base[i] = byte(i * 11 / 3)
	}
	dir := t.TempDir()
	open := func(name string, flip int) *peerFile {
		_, p := mapCopy(t, filepath.Join(dir, name), base, flip)
		return p
	}
	flips := []int{-1, 7, passStep + 3, 2*passStep + 9, size - 1, -1}
	for _, stopAt := range []int{size, passStep + 100, 0} {
		rp := &readPass{buf: make([]byte, passStep)}
		for k, fl := range flips {
			rp.peers = append(rp.peers, open("peer"+strconv.Itoa(stopAt)+"-"+strconv.Itoa(k), fl))
		}
		// A copy cut short after it was opened (someone truncating it
		// under the comparison) is not equal: its last step reads short.
		cut := open("cut"+strconv.Itoa(stopAt), -1)
		if err := os.Truncate(cut.f.Name(), size-100); err != nil {
			t.Fatal(err)
		}
		// Cut by more than a step: the reads of its later steps find
		// nothing.
		far := open("far"+strconv.Itoa(stopAt), -1)
		if err := os.Truncate(far.f.Name(), passStep+4096); err != nil {
			t.Fatal(err)
		}
		rp.peers = append(rp.peers, cut, far)
		// The reader advances batch by batch (of 10,007 bytes) to stopAt.
		for off := 0; off < stopAt; off += 10007 {
			rp.upTo(base, int64(min(off+10007, stopAt)))
		}
		rp.rest(base)
		if rp.broken || rp.compared != size {
			t.Errorf("stop at %d: broken %v, compared %d of %d", stopAt, rp.broken, rp.compared, size)
		}
		if cut.same || far.same {
			t.Errorf("stop at %d: a copy cut short is found equal (%v, %v)", stopAt, cut.same, far.same)
		}
		for k, p := range rp.peers[:len(flips)] {
			if p.same != (flips[k] < 0) {
				t.Errorf("stop at %d: copy %d (byte %d changed) same %v", stopAt, k, flips[k], p.same)
			}
		}
	}
}

// mapCopy writes base to path with the byte at flip changed (none when
// flip is negative), maps the file, and opens it as a peer to compare.
func mapCopy(t *testing.T, path string, base []byte, flip int) ([]byte, *peerFile) {
	t.Helper()
	b := append([]byte(nil), base...)
	if flip >= 0 {
		b[flip] ^= 0x40
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	data, unmap, err := mapFile(f, int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unmap(); f.Close() })
	pf, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	p := &peerFile{f: pf, same: true}
	t.Cleanup(p.close)
	return data, p
}
