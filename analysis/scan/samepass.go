package scan

import (
	"bytes"
	"os"

	"github.com/ksleuth/ksleuth/analysis/source"
)

// The copies of one file on three brokers were compared two at a time,
// each against the first one read, so the first copy's pages were mapped
// and read once per copy: at 1 GiB that was a quarter of the comparison.
// Now the first comparison of a file also takes every later input's file
// at the same path with the same size, and each 4 MiB step of the first
// copy is compared with all of them while it is mapped in. A later file
// found equal is remembered by its entry and the file's identity (device,
// inode, size, modification time); when its turn comes and the file is
// still the one compared, it takes over the rows without being read.

// peerFile is a later input's copy compared in the same pass.
type peerFile struct {
	e     *source.Entry
	f     *os.File
	st    os.FileInfo
	data  []byte
	unmap func()
	same  bool
}

// passed is a later copy found identical ahead of its turn.
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

// peers opens and maps the later inputs' files at fc's path with its
// size, none when fc's file has a hole (a later copy then is compared on
// its turn).
func (s *sameFiles) peers(fc *fileCtx, ref *sameFile) []*peerFile {
	if fc.hole != 0 {
		return nil
	}
	s.mu.Lock()
	cands := s.byPath[fc.e.Path]
	s.mu.Unlock()
	var out []*peerFile
	for _, e := range cands {
		if e.Input <= fc.e.Input || e.Input == ref.entry.Input || e.Size != fc.dataEnd {
			continue
		}
		f, err := e.Open()
		if err != nil {
			continue
		}
		st, err := f.Stat()
		if err != nil || st.Size() != fc.dataEnd {
			f.Close()
			continue
		}
		data, unmap, err := mapFile(f, fc.dataEnd)
		if err != nil {
			f.Close()
			continue
		}
		out = append(out, &peerFile{e: e, f: f, st: st, data: data, unmap: unmap, same: true})
	}
	return out
}

// close unmaps and closes the peers, and remembers those found equal.
func (s *sameFiles) closePeers(fc *fileCtx, ref *sameFile, ps []*peerFile) {
	for _, p := range ps {
		p.unmap()
		p.f.Close()
		if p.same {
			s.mu.Lock()
			if s.passed == nil {
				s.passed = map[*source.Entry]passed{}
			}
			s.passed[p.e] = passed{key: sameKeyOf(fc), st: p.st, file: ref}
			s.mu.Unlock()
		}
	}
}

// passedAhead returns the file fc's was found identical to in an earlier
// pass, when fc's file is still the one compared then.
func (s *sameFiles) passedAhead(fc *fileCtx) *sameFile {
	s.mu.Lock()
	p, ok := s.passed[fc.e]
	delete(s.passed, fc.e)
	s.mu.Unlock()
	if !ok || p.key != sameKeyOf(fc) {
		return nil
	}
	f, err := fc.e.Open()
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !os.SameFile(st, p.st) || st.Size() != p.st.Size() || !st.ModTime().Equal(p.st.ModTime()) {
		return nil
	}
	return p.file
}

// stepPeers compares the step [off, end) of ref with every peer still
// equal, releasing each peer's pages behind it; it reports whether any is.
// A peer that shrinks under the comparison (a memory fault in its
// mapping) is not equal.
func stepPeers(ref []byte, ps []*peerFile, off, end int) bool {
	anySame := false
	for _, p := range ps {
		if !p.same {
			continue
		}
		err := guardFaults(p.data, func() error {
			populate(p.data[off:end])
			p.same = bytes.Equal(ref[off:end], p.data[off:end])
			dropPages(p.data[off:end])
			return nil
		})
		p.same = p.same && err == nil
		anySame = anySame || p.same
	}
	return anySame
}
