package segment

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// sparseInput is an input of size bytes holding data only in its pieces,
// zeros elsewhere, without storing the zeros. It counts the zeros read
// outside the pieces, and seeks when seekable.
type sparseInput struct {
	pieces   []sparsePiece
	size     int64
	pos      int64
	holeRead int64
}

type sparsePiece struct {
	off  int64
	data []byte
}

func (s *sparseInput) Read(p []byte) (int, error) {
	if s.pos >= s.size {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), s.size-s.pos)]
	next := s.size
	for _, pc := range s.pieces {
		if end := pc.off + int64(len(pc.data)); s.pos >= pc.off && s.pos < end {
			n := copy(p, pc.data[s.pos-pc.off:])
			s.pos += int64(n)
			return n, nil
		} else if pc.off > s.pos {
			next = min(next, pc.off)
		}
	}
	n := int(min(int64(len(p)), next-s.pos))
	clear(p[:n])
	s.pos += int64(n)
	s.holeRead += int64(n)
	return n, nil
}

// seekableSparse is a sparseInput that can seek.
type seekableSparse struct{ *sparseInput }

func (s seekableSparse) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		s.pos += off
	case io.SeekStart:
		s.pos = off
	default:
		return 0, errors.New("unsupported whence")
	}
	return s.pos, nil
}

func holeBatches(first int64, n int) []byte {
	var seg []byte
	for i := range n {
		seg = append(seg, segtest.Batch{Magic: 2, BaseOffset: first + int64(i), FirstTimestamp: 1_700_000_000_000,
			Records: []segtest.Record{{Value: []byte(fmt.Sprint("value ", i))}}}.Encode()...)
	}
	return seg
}

type holeItem struct {
	batch   int64 // base offset, or -1 for a finding
	pos     int64
	kind    string
	sev     string
	length  int64
	message string
}

// readHoles reads the input to its end with a five-second bound: a reader
// that reads a hole through instead of passing it is stopped, not hung.
func readHoles(t *testing.T, in io.Reader, opts Options) []holeItem {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	opts.Interrupt = func() error {
		if time.Now().After(deadline) {
			return errors.New("read for more than 5 s: the hole is read, not passed")
		}
		return nil
	}
	r := NewReader(in, opts)
	defer r.Close()
	var out []holeItem
	for r.Next() {
		if f := r.Finding(); f != nil {
			out = append(out, holeItem{-1, f.Offset, f.Kind(), f.Severity(), f.Length, f.Error()})
			continue
		}
		out = append(out, holeItem{batch: r.Batch().BaseOffset, pos: r.Batch().Position})
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHoleInTheMiddle: a terabyte hole between batches is one sparse-hole
// error from where the data stops to where it resumes, passed without
// reading it (seeked), and every batch after it is read, at its position.
func TestHoleInTheMiddle(t *testing.T) {
	a, b := holeBatches(0, 3), holeBatches(3, 4)
	const tb = int64(1) << 40
	cases := []struct {
		name   string
		before []byte // after the first batches, before the hole
		want   []string
		start  int64 // where the finding covering the hole starts
	}{
		{"at a batch boundary", nil, []string{"sparse-hole"}, int64(len(a))},
		{"after zeros", make([]byte, 1000), []string{"sparse-hole"}, int64(len(a))},
		{"after garbage", bytes.Repeat([]byte{0xee}, 1000), []string{"unknown-magic", "sparse-hole"}, int64(len(a))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			head := append(slices.Clone(a), c.before...)
			holeStart := int64(len(head))
			in := &sparseInput{pieces: []sparsePiece{{0, head}, {tb, b}}, size: tb + int64(len(b))}
			got := readHoles(t, seekableSparse{in}, Options{Path: "x.log", Size: in.size, Holes: []Hole{{holeStart, tb}}})
			var batches, kinds []string
			for _, it := range got {
				if it.batch >= 0 {
					batches = append(batches, fmt.Sprint(it.batch, "@", it.pos))
				} else {
					kinds = append(kinds, it.kind)
				}
			}
			wantBatches := []string{"0@0", fmt.Sprint("1@", len(a)/3), fmt.Sprint("2@", 2*len(a)/3)}
			for i := range 4 {
				wantBatches = append(wantBatches, fmt.Sprint(3+i, "@", tb+int64(i*len(b)/4)))
			}
			if !slices.Equal(batches, wantBatches) || !slices.Equal(kinds, c.want) {
				t.Fatalf("batches %v kinds %v, want %v %v: %+v", batches, kinds, wantBatches, c.want, got)
			}
			for _, it := range got {
				if it.kind == "sparse-hole" {
					if it.pos+it.length != tb || it.sev != "error" || it.pos != c.start && it.pos != holeStart {
						t.Errorf("hole finding %+v", it)
					}
				}
			}
			if first := got[3]; first.batch >= 0 || first.pos != c.start {
				t.Errorf("first finding %+v, want one at byte %d", first, c.start)
			}
			if in.holeRead > 8<<20 {
				t.Errorf("%d bytes of the hole were read", in.holeRead)
			}
		})
	}
}

// TestHoleToTheEnd: a hole to the end of the input is a note (a
// preallocated tail), one finding.
func TestHoleToTheEnd(t *testing.T) {
	a := holeBatches(0, 2)
	const size = int64(1) << 40
	in := &sparseInput{pieces: []sparsePiece{{0, a}}, size: size}
	got := readHoles(t, seekableSparse{in}, Options{Size: size, Holes: []Hole{{int64(len(a)), size}}})
	if len(got) != 3 || got[2].kind != "sparse-hole" || got[2].sev != "note" || got[2].length != size-int64(len(a)) {
		t.Fatalf("%+v", got)
	}
}

// TestHoleInsideBatch: a batch whose zero bytes are a hole (a sparse copy
// of a segment) is read whole and intact, with no finding.
func TestHoleInsideBatch(t *testing.T) {
	big := segtest.Batch{Magic: 2, BaseOffset: 0, Records: []segtest.Record{{Value: make([]byte, 64<<10)}}}.Encode()
	seg := append(big, holeBatches(1, 2)...)
	// The hole covers the middle of the value; its bytes are zeros.
	h := Hole{Start: 8 << 10, End: 48 << 10}
	data := slices.Clone(seg)
	got := readHoles(t, bytes.NewReader(data), Options{Size: int64(len(seg)), Holes: []Hole{h}})
	if len(got) != 3 || got[0].batch != 0 || got[1].batch != 1 || got[2].batch != 2 {
		t.Fatalf("%+v", got)
	}
}

// TestHoleNotTouched: a reader of bytes (a mapped file) passes a hole
// without looking at it, and a reader without Seek reads it through:
// with the hole's bytes made garbage, only the reader that reads them
// reports damage, and both read the batches after it.
func TestHoleNotTouched(t *testing.T) {
	a, b := holeBatches(0, 2), holeBatches(2, 2)
	garbage := bytes.Repeat([]byte{0xab}, 3<<20)
	data := slices.Concat(a, garbage, b)
	hole := []Hole{{int64(len(a)), int64(len(a) + len(garbage))}}
	r := NewReaderBytes(data, Options{Size: int64(len(data)), Holes: hole})
	var kinds []string
	var batches int
	for r.Next() {
		if f := r.Finding(); f != nil {
			kinds = append(kinds, f.Kind())
		} else {
			batches++
		}
	}
	r.Close()
	if batches != 4 || !slices.Equal(kinds, []string{"sparse-hole"}) {
		t.Errorf("bytes: %d batches, findings %v", batches, kinds)
	}
	// Not seekable: read through (zeros, as a hole reads), same result.
	in := &sparseInput{pieces: []sparsePiece{{0, a}, {hole[0].End, b}}, size: int64(len(data))}
	got := readHoles(t, in, Options{Size: in.size, Holes: hole})
	if len(got) != 5 || got[2].kind != "sparse-hole" || got[4].batch != 3 || in.holeRead != int64(len(garbage)) {
		t.Errorf("read through: %+v, %d hole bytes read", got, in.holeRead)
	}
}
