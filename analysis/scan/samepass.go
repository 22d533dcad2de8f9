package scan

import (
	"bytes"
	"errors"
	"os"

	"github.com/ksleuth/ksleuth/analysis/source"
)

// The first comparison of a file takes every later input's file at the
// same path with the same size too, so the first copy's pages are read
// once however many brokers hold it, not once per copy. A later file
// found equal is remembered by its entry and the file's identity (device,
// inode, size, modification time); when its turn comes and the file is
// still the one compared, it takes over the rows without being read.

// peerFile is a later input's copy compared in the same pass. It is read
// with pread(2), a step at a time, into a buffer that stays in the CPU's
// cache beside the stretch of the first copy it is compared with. Mapping
// it instead costs the kernel a page-table entry set and cleared per page
// (and a TLB shootdown on every core the process runs on at each release),
// more than the copy pread makes: three 1 GiB copies cost about a tenth
// less CPU read than mapped.
type peerFile struct {
	e    *source.Entry
	f    *os.File
	st   os.FileInfo
	same bool
}

// passed is a later copy compared ahead of its turn: found identical to
// file, or different when file is nil.
type passed struct {
	key  sameKey
	st   os.FileInfo
	file *sameFile
}

// listLater records every dir or file input's entries by path, for the
// comparisons to find the later copies of a file (Run lists the inputs
// once, before the scan).
func (s *sameFiles) listLater(entries []*source.Entry) {
	if s == nil {
		return
	}
	if s.byPath == nil {
		s.byPath = map[string][]*source.Entry{}
	}
	for _, e := range entries {
		if e.Err == nil && e.Skipped == "" {
			s.byPath[e.Path] = append(s.byPath[e.Path], e)
		}
	}
}

// peers opens the later inputs' files at fc's path with its
// size, but for skip's (the input the comparison is with), none when fc's
// file has a hole (a later copy then is compared on its turn).
func (s *sameFiles) peers(fc *fileCtx, skip int) []*peerFile {
	if fc.hole != 0 {
		return nil
	}
	s.mu.Lock()
	cands := s.byPath[fc.e.Path]
	s.mu.Unlock()
	var out []*peerFile
	for _, e := range cands {
		if e.Input <= fc.e.Input || e.Input == skip || e.Size != fc.dataEnd {
			continue
		}
		if p := openPeer(e, fc.dataEnd); p != nil {
			out = append(out, p)
		}
	}
	return out
}

// openPeer opens e's file when it still has size bytes; nil when it
// cannot.
func openPeer(e *source.Entry, size int64) *peerFile {
	f, err := e.Open()
	if err != nil {
		return nil
	}
	st, err := f.Stat()
	if err != nil || st.Size() != size {
		f.Close()
		return nil
	}
	return &peerFile{e: e, f: f, st: st, same: true}
}

// close closes the copy's file.
func (p *peerFile) close() { p.f.Close() }

// closePeers closes the peers, and remembers what was found:
// equal to ref, or different (ref nil: nothing is known).
func (s *sameFiles) closePeers(fc *fileCtx, ref *sameFile, ps []*peerFile) {
	for _, p := range ps {
		p.close()
		if ref == nil {
			continue
		}
		var file *sameFile
		if p.same {
			file = ref
		}
		s.mu.Lock()
		if s.passed == nil {
			s.passed = map[*source.Entry]passed{}
		}
		s.passed[p.e] = passed{key: sameKeyOf(fc), st: p.st, file: file}
		s.mu.Unlock()
	}
}

// passedAhead returns what an earlier pass found of fc's file, when it is
// still the file compared then: the file it is identical to (nil when it
// differs), and whether it was compared at all.
func (s *sameFiles) passedAhead(fc *fileCtx) (*sameFile, bool) {
	s.mu.Lock()
	p, ok := s.passed[fc.e]
	delete(s.passed, fc.e)
	s.mu.Unlock()
	if !ok || p.key != sameKeyOf(fc) {
		return nil, false
	}
	f, err := fc.e.Open()
	if err != nil {
		return nil, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !os.SameFile(st, p.st) || st.Size() != p.st.Size() || !st.ModTime().Equal(p.st.ModTime()) {
		return nil, false
	}
	return p.file, true
}

// stepPeers compares the step [off, end) of ref with every peer still
// equal, each read into buf (at least end-off bytes); it reports whether
// any is. A peer that cannot be read there in full (it shrank, or an I/O
// error) is not equal.
func stepPeers(ref []byte, ps []*peerFile, off, end int, buf []byte) bool {
	anySame := false
	for _, p := range ps {
		if !p.same {
			continue
		}
		n, err := p.f.ReadAt(buf[:end-off], int64(off))
		p.same = err == nil && n == end-off && bytes.Equal(ref[off:end], buf[:n])
		anySame = anySame || p.same
	}
	return anySame
}

// A file that the later inputs hold copies of is compared with them while
// it is read, not afterwards: the reader has just brought each stretch of
// it into the CPU caches and the page tables, so the comparison reads only
// the copies from memory. Mapping and reading the first file a second time
// for the comparison cost a third of it (replicas over three 1 GiB copies).

// readPass compares the file being read with its later copies, a step
// behind the reader.
type readPass struct {
	peers    []*peerFile
	buf      []byte // a step of a copy, read
	compared int    // bytes compared so far
	broken   bool   // the file itself faulted: nothing is known of the copies
}

// passStep is how much is compared at once: within the L2 cache, so the
// stretch the reader just passed is still there for every copy.
const passStep = 512 << 10

// startPass opens the later copies of fc's file for comparison during its
// read; nil when there are none or the file's rows are not kept (a copy
// could not take them over).
func (s *sameFiles) startPass(fc *fileCtx) *readPass {
	if s == nil || fc.rec == nil {
		return nil
	}
	ps := s.peers(fc, -1)
	if len(ps) == 0 {
		return nil
	}
	return &readPass{peers: ps, buf: make([]byte, passStep)}
}

// upTo compares the copies with ref up to off, in whole steps.
func (rp *readPass) upTo(ref []byte, off int64) {
	for rp.compared+passStep <= int(off) {
		end := rp.compared + passStep
		if !stepPeers(ref, rp.peers, rp.compared, end, rp.buf) {
			rp.compared = len(ref)
			return
		}
		rp.compared = end
	}
}

// rest compares what the reader left of ref, after it stopped.
func (rp *readPass) rest(ref []byte) {
	if rp.broken {
		return
	}
	err := guardFaults(ref, func() error {
		for rp.compared < len(ref) {
			end := min(rp.compared+passStep, len(ref))
			// The file's own pages are the reader's and hasher's to
			// release: the hasher may still be behind.
			populate(ref[rp.compared:end])
			if !stepPeers(ref, rp.peers, rp.compared, end, rp.buf) {
				break
			}
			rp.compared = end
		}
		return nil
	})
	rp.broken = err != nil
}

// finishPass compares what the reader left and releases the copies; those
// found equal take the file's rows over on their turn when it was kept.
func (s *sameFiles) finishPass(fc *fileCtx, m *mappedInput, rp *readPass, readErr error) {
	if rp == nil {
		return
	}
	rp.rest(m.data)
	s.mu.Lock()
	ref := s.m[sameKeyOf(fc)]
	s.mu.Unlock()
	if ref != nil && ref.entry != fc.e {
		ref = nil
	}
	if rp.broken || errors.Is(readErr, errFault) || ref == nil {
		// Nothing is known of the copies: each is read on its turn.
		for _, p := range rp.peers {
			p.close()
		}
		return
	}
	s.closePeers(fc, ref, rp.peers)
}
