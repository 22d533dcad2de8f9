package scan

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"sync"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// Several brokers' copies of one partition are mostly the same files byte
// for byte. With Config.DecodeOnce a segment of a later input with the
// same partition, name (base offset) and size as one already read is
// compared with it byte by byte, which runs at memory bandwidth, instead
// of being framed and checksummed again; when every byte agrees, the
// copy's batch rows and findings are the other file's, and a finding's
// message says the copy shares the bytes. A copy that differs anywhere is
// read in full as usual.

// sameKey names a segment file by what its copies share.
type sameKey struct {
	topic     string
	partition int32
	name      string
	dataEnd   int64
	hole      int64
}

// sameFile is what a copy takes over from the first file read of its key.
type sameFile struct {
	entry     *source.Entry
	rows      [][]analysis.BatchRow // the chunks as emitted
	nrows     int
	anomalies []analysis.AnomalyRow // the segment reader's and the decode's, not the file's own
	omitted   finding.Tally
	omitAt    map[finding.Severity][2]int64
	row       analysis.FileRow
	agg       segAgg
}

// sameFiles holds the files the copies of later inputs are compared with.
type sameFiles struct {
	mu    sync.Mutex
	m     map[sameKey]*sameFile
	rows  int   // rows kept, within maxSameRows
	files int64 // copies found identical

	byPath map[string][]*source.Entry // every dir or file input's entries (samepass.go)
	passed map[*source.Entry]passed   // later copies found identical ahead
}

// maxSameRows bounds the batch rows kept for the comparison (some 200
// bytes each): past it, later files are read in full.
var maxSameRows = 1 << 18

func sameKeyOf(fc *fileCtx) sameKey {
	return sameKey{topic: fc.topic, partition: fc.partition, name: path.Base(fc.e.Path), dataEnd: fc.dataEnd, hole: fc.hole}
}

// recorder collects a file's rows as they are emitted, nil when the file
// is not kept (the budget is spent, or a copy of its key is kept already).
type recorder struct {
	s    *sameFiles
	rows [][]analysis.BatchRow
	n    int
	ok   bool
}

func (s *sameFiles) recorder(fc *fileCtx) *recorder {
	if s == nil || fc.partition < 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[sameKeyOf(fc)]; ok || s.rows >= maxSameRows {
		return nil
	}
	return &recorder{s: s, ok: true}
}

// add keeps rows, a chunk's, while the budget lasts. Each chunk is copied
// once and kept as it is: appending them all to one slice copied every row
// again at each growth, 10 % of the CPU of replicas over three 1 GiB
// copies.
func (r *recorder) add(rows []analysis.BatchRow) {
	if r == nil || !r.ok {
		return
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if r.s.rows+len(rows) > maxSameRows {
		r.ok, r.rows = false, nil
		return
	}
	r.s.rows += len(rows)
	r.n += len(rows)
	r.rows = append(r.rows, slices.Clone(rows))
}

// keep stores the read file under its key, with the findings from first
// on (those of the segment itself).
func (r *recorder) keep(fc *fileCtx, first int) {
	if r == nil || !r.ok {
		return
	}
	fd := fc.done
	f := &sameFile{entry: fc.e, rows: r.rows, nrows: r.n, anomalies: slices.Clone(fd.anomalies[first:]), omitAt: mapsClone(fd.omitAt),
		row: fd.row, agg: fd.agg}
	if fd.omitted != nil {
		f.omitted = finding.Tally{}
		for k, n := range fd.omitted {
			f.omitted[k] = n
		}
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	k := sameKeyOf(fc)
	if _, ok := r.s.m[k]; !ok {
		r.s.m[k] = f
	}
}

// identical returns the kept file data (the copy's mapping) is byte for
// byte the same as, nil when none is.
func (s *sameFiles) identical(fc *fileCtx, m *mappedInput) *sameFile {
	if s == nil || fc.partition < 0 {
		return nil
	}
	s.mu.Lock()
	f := s.m[sameKeyOf(fc)]
	s.mu.Unlock()
	if f == nil || f.entry.Input == fc.e.Input {
		return nil
	}
	p, known := s.passedAhead(fc)
	if known && p != f {
		// Compared in the pass of the first copy and found different.
		return nil
	}
	if p == f {
		m.noTouch = true
		m.advance(int64(len(m.data)))
		m.noTouch = false
		s.mu.Lock()
		s.files++
		s.mu.Unlock()
		return f
	}
	other, err := f.entry.Open()
	if err != nil {
		return nil
	}
	defer other.Close()
	if st, err := other.Stat(); err != nil || st.Size() != fc.dataEnd+fc.hole {
		return nil
	}
	data, unmap, err := mapFile(other, fc.dataEnd)
	if err != nil {
		return nil
	}
	defer unmap()
	peers := s.peers(fc, f.entry.Input)
	defer s.closePeers(fc, f, peers)
	same := false
	err = guardFaults(data, func() error {
		return guardFaults(m.data, func() error {
			same = equalReleasing(m, data, peers)
			return nil
		})
	})
	if err != nil {
		for _, p := range peers {
			p.same = false
		}
	}
	if err != nil || !same {
		return nil
	}
	s.mu.Lock()
	s.files++
	s.mu.Unlock()
	return f
}

// sameStep is how many bytes are compared between releases of pages; a
// multiple of the page size.
const sameStep = 4 << 20

// equalReleasing compares m's mapping with other step by step, releasing
// the pages of both behind it as the reader does, and each step of other
// with the peers still equal to it too (samepass.go). It goes on while m
// or a peer is equal; the peers' same says which are.
func equalReleasing(m *mappedInput, other []byte, peers []*peerFile) bool {
	a := m.data
	if len(a) != len(other) {
		for _, p := range peers {
			p.same = false
		}
		return false
	}
	m.noTouch = true
	defer func() { m.noTouch = false }()
	same := true
	var buf []byte
	if len(peers) > 0 {
		buf = make([]byte, sameStep)
	}
	for off := 0; off < len(a); off += sameStep {
		end := min(off+sameStep, len(a))
		populate(other[off:end])
		if same {
			populate(a[off:end])
			same = bytes.Equal(a[off:end], other[off:end])
		}
		peersSame := stepPeers(other, peers, off, end, buf)
		if same {
			m.advance(int64(end))
		}
		dropPages(other[off:end])
		if !same && !peersSame {
			for _, p := range peers {
				p.same = false
			}
			return false
		}
	}
	return same
}

// takeOver gives the copy's file the rows and findings of f.
func (w *worker) takeOver(fc *fileCtx, f *sameFile, emit func(chunk) error) error {
	fd := fc.done
	fd.segment = true
	r := &fd.row
	r.Batches, r.Records, r.FirstOffset, r.LastOffset = f.row.Batches, f.row.Records, f.row.FirstOffset, f.row.LastOffset
	fd.agg = f.agg
	fd.agg.codecs, fd.agg.producers = mapsClone(f.agg.codecs), mapsClone(f.agg.producers)
	note := fmt.Sprintf(" (this copy is byte-identical to %s of input %d, which has the same finding)", f.entry.Path, f.entry.Input)
	for _, a := range f.anomalies {
		a.Input, a.File = fc.input, fc.e.Path
		if a.Topic != nil {
			a.Topic, a.Partition = &fc.topic, &fc.partition
		}
		a.Message += note
		fd.anomalies = append(fd.anomalies, a)
	}
	if f.omitted != nil {
		fd.omitted = mapsClone(f.omitted)
		fd.omitAt = mapsClone(f.omitAt)
	}
	w.cfg.once.add(int64(f.nrows))
	for _, rows := range f.rows {
		out := chunk{batches: batchSlices.get(0)}
		for _, b := range rows {
			b.Input, b.Segment = fc.input, fc.e.Path
			out.batches = append(out.batches, b)
		}
		if err := emit(out); err != nil {
			return err
		}
	}
	return nil
}

func mapsClone[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return nil
	}
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (s *sameFiles) identicalFiles() int64 {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.files
}
