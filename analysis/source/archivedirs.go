package source

import (
	"path"
	"strings"

	"github.com/ksleuth/ksleuth/snapshot"
)

// A tar archive has an entry for each dir it holds, an empty one too. A
// broker always keeps an active segment in a partition dir, so an empty
// partition dir is evidence, as List gives it for a dir input: Stream
// gives the archive's to Options.EmptyDir once the archive is read.

// archiveDirs follows an archive's dir and file entries in stream order.
type archiveDirs struct {
	dirs   []*Entry        // dir entries named like partition dirs, first of each name
	seen   map[string]bool // their paths
	filled map[string]bool // dirs a file entry lies in, by path without "/"
	kafka  map[string]bool // log dirs a Kafka file lies in
	// last is the path of the latest entry read (a dir's ends in "/"):
	// the archive was inside it if the stream ended there.
	last string
	// stopped: the caller ended the stream before the archive's end, so
	// nothing is known of the dirs' later entries.
	stopped bool
}

// dir takes a dir entry of the raw tar name.
func (a *archiveDirs) dir(in *Input, raw string) {
	name := cleanArchiveName(raw)
	if name == "" {
		return
	}
	e := &Entry{Input: in.Index, Path: name + "/"}
	describe(e, "", nil)
	a.last = e.Path
	if e.Partition == nil || a.seen[e.Path] {
		return
	}
	if a.seen == nil {
		a.seen = map[string]bool{}
	}
	a.seen[e.Path] = true
	a.dirs = append(a.dirs, e)
}

// file takes a file entry, kept by the options or not: either way the dir
// it lies in is not empty.
func (a *archiveDirs) file(e *Entry) {
	if a.filled == nil {
		a.filled, a.kafka = map[string]bool{}, map[string]bool{}
	}
	a.filled[path.Dir(e.Path)] = true
	if e.Name.Kind != snapshot.KindUnknown {
		a.kafka[e.LogDir] = true
	}
	a.last = e.Path
}

// empty gives the partition dirs no file entry lay in, of log dirs that
// hold Kafka files, as List gives a dir input's. When the archive ended
// early (cut), the dir it ended inside is left out: its files may lie
// past the cut, and it is not known to be empty.
func (a *archiveDirs) empty(opts Options, cut bool) []*Entry {
	var out []*Entry
	for _, e := range a.dirs {
		dir := strings.TrimSuffix(e.Path, "/")
		switch {
		case a.filled[dir], !a.kafka[e.LogDir]:
		case !opts.keep(e):
			opts.leftOut(e)
		case cut && strings.HasPrefix(a.last, e.Path):
		default:
			out = append(out, e)
		}
	}
	return out
}
