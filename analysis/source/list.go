package source

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ksleuth/ksleuth/snapshot"
)

// Kinds of Skip: why a path is listed but not read.
const (
	// SkipSpecial: a FIFO, device or socket (or a link to one); opening a
	// FIFO waits for a writer, and a device reads forever.
	SkipSpecial = "special-file"
	// SkipLinkInside: a symlink (or an archive's hard link) to a file
	// inside the input root, read once, under the target's own name.
	SkipLinkInside = "link-inside"
	// SkipLinkOutside: a link to something outside the input root, which
	// is not evidence of this input.
	SkipLinkOutside = "link-outside"
	// SkipLinkDir: a symlink to a directory; the directory's files are
	// listed under their own paths when it is inside the root.
	SkipLinkDir = "link-dir"
	// SkipDangling: a symlink to nothing (or a loop).
	SkipDangling = "dangling-symlink"
	// SkipNestedArchive: an archive inside an archive.
	SkipNestedArchive = "nested-archive"
	// SkipIOError: a path that could not be read (Entry.Err).
	SkipIOError = "io-error"
)

// Skip is one path of an input that is listed but not read, and why.
type Skip struct {
	Input  int
	Path   string
	Kind   string // one of the Skip* kinds
	Reason string
}

// Skip returns the entry's Skip when it is not read: skipped, or
// unreadable.
func (e *Entry) Skip() (Skip, bool) {
	switch {
	case e.Err != nil:
		return Skip{e.Input, e.Path, SkipIOError, e.Err.Error()}, true
	case e.MissingData():
		return Skip{e.Input, e.Path, SkipIOError, e.Skipped}, true
	case e.Skipped != "":
		return Skip{e.Input, e.Path, e.SkipKind, e.Skipped}, true
	}
	return Skip{}, false
}

// MissingData reports whether e, skipped, names a file of Kafka's own
// whose data the input does not hold: a link to nothing, to outside the
// input, or to a device or pipe. Such a file is unreadable, not "not a
// Kafka file": the broker's copy of it is missing from this one.
func (e *Entry) MissingData() bool {
	if e.Skipped == "" || e.Name.Leftover || e.Name.Suffix != "" {
		return false
	}
	if e.Name.Kind == snapshot.KindUnknown {
		// A link named like a partition dir that leads nowhere or out of
		// the input: that partition's files are all missing.
		_, isPart := ParsePartitionDir(path.Base(e.Path))
		return isPart && (e.SkipKind == SkipDangling || e.SkipKind == SkipLinkOutside)
	}
	switch e.SkipKind {
	case SkipDangling, SkipLinkOutside, SkipSpecial:
		return true
	}
	return false
}

// MissingWhat names what a MissingData entry is: "a log file", "a
// partition dir".
func (e *Entry) MissingWhat() string {
	if e.Name.Kind == snapshot.KindUnknown {
		return "a partition dir"
	}
	return "a " + e.Name.Kind.String() + " file"
}

// Skips lists the entries that are not read, in their order: what a
// summary reports as skipped or unreadable.
func Skips(entries []*Entry) []Skip {
	var out []Skip
	for _, e := range entries {
		if s, ok := e.Skip(); ok {
			out = append(out, s)
		}
	}
	return out
}

// errNotRegular names what a non-regular file is.
func errNotRegular(m fs.FileMode) error {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return errors.New("a FIFO, not a regular file: not opened")
	case m&fs.ModeSocket != 0:
		return errors.New("a socket, not a regular file: not opened")
	case m&fs.ModeDevice != 0:
		return errors.New("a device, not a regular file: not opened")
	case m.IsDir():
		return errors.New("a directory, not a regular file")
	}
	return fmt.Errorf("not a regular file (mode %v): not opened", m)
}

// Files lists a dir or file input's files, sorted by path (lexical order,
// which within a partition is offset order). Nothing the listing cannot
// read stops it: a dir or file that cannot be read is listed with Err set
// (its Path ends in "/" for a dir) and the rest is listed as usual.
// Non-regular files and symlinks are listed with Skipped set: a symlink is
// never followed, and one to a regular file inside the root names a file
// the listing has under its own path.
func (in *Input) Files(opts Options) ([]*Entry, error) {
	files, _, err := in.List(opts)
	return files, err
}

// List is Files with the partition dirs below the root that hold no file
// at all, which a list of files cannot show: a broker always keeps an
// active segment in a partition dir, so an empty one is evidence too.
// Each empty dir is an Entry whose Path is the dir's with a trailing "/";
// an archive's come from Stream (Options.EmptyDir).
func (in *Input) List(opts Options) (files, emptyDirs []*Entry, err error) {
	switch in.Kind {
	case File:
		e := &Entry{Input: in.Index, Path: filepath.Base(in.Abs), abs: in.Abs}
		describe(e, filepath.Base(filepath.Dir(in.Abs)), nil)
		if !opts.keep(e) {
			opts.leftOut(e)
			return nil, nil, nil
		}
		if fi, err := os.Stat(in.Abs); err != nil {
			e.Err = err
		} else if !fi.Mode().IsRegular() {
			e.SkipKind, e.Skipped = SkipSpecial, errNotRegular(fi.Mode()).Error()
		} else {
			e.Size = fi.Size()
		}
		return []*Entry{e}, nil, nil
	case Archive:
		return nil, nil, fmt.Errorf("source: %s is an archive: use Stream", in.Path)
	case Remote:
		return in.listRemote(opts)
	}
	l := &lister{in: in, opts: opts, rootName: filepath.Base(in.Abs), parts: map[string]*PartitionDir{}, filled: map[string]bool{}}
	// The walk's own errors all come through the callback, which keeps
	// going; WalkDir returns nil.
	_ = filepath.WalkDir(in.Abs, l.visit)
	logDirs := logDirsOf(l.out)
	for _, e := range l.out {
		claimLogDir(e, logDirs)
	}
	// A file the topic filter left out for the partition its dir's name
	// says is kept when that dir turns out to be a log dir.
	for _, f := range l.filtered {
		if claimLogDir(f.e, logDirs) {
			l.file(f.e, f.path, f.d)
		} else {
			opts.leftOut(f.e)
		}
	}
	sort.Slice(l.out, func(i, j int) bool { return l.out[i].Path < l.out[j].Path })
	// An empty dir is a partition dir when it lies in a log dir: one that
	// holds Kafka files. Named like a partition dir elsewhere, it may be a
	// log dir of its own (broker-1), with nothing in it to tell.
	kafkaDirs := map[string]bool{}
	for _, e := range l.out {
		if e.Name.Kind != snapshot.KindUnknown {
			kafkaDirs[e.LogDir] = true
		}
	}
	for _, d := range l.dirs {
		if l.filled[d] {
			continue
		}
		e := &Entry{Input: in.Index, Path: d + "/"}
		describe(e, l.rootName, nil)
		switch {
		case e.Partition == nil || !kafkaDirs[e.LogDir]:
		case opts.keep(e):
			emptyDirs = append(emptyDirs, e)
		default:
			opts.leftOut(e)
		}
	}
	return l.out, emptyDirs, nil
}

type lister struct {
	in       *Input
	opts     Options
	rootName string
	out      []*Entry
	parts    map[string]*PartitionDir // describe's, by dir
	// dirs are the dirs below the root named like partition dirs, in walk
	// order; filled those that hold something listed (a file, a link, an
	// unreadable path), by the same slash path.
	dirs     []string
	filled   map[string]bool
	filtered []filteredFile // left out by opts, not yet read
}

// filteredFile is a file the topic filter left out, kept until the whole
// listing says whether its dir is a log dir.
type filteredFile struct {
	e    *Entry
	path string
	d    fs.DirEntry
}

// entry builds the entry of path p below the root; a dir's path gets a
// trailing "/", so it is described by the partition dir it is.
func (l *lister) entry(p string, dir bool) *Entry {
	rel, err := filepath.Rel(l.in.Abs, p)
	if err != nil {
		rel = p
	}
	rel = filepath.ToSlash(rel)
	if dir {
		if rel == "." {
			rel = ""
		}
		rel += "/"
	}
	e := &Entry{Input: l.in.Index, Path: rel, abs: p}
	describe(e, l.rootName, l.parts)
	return e
}

func (l *lister) visit(p string, d fs.DirEntry, err error) error {
	if err != nil {
		// p itself (when d is nil) or the listing of dir p failed: the
		// path is listed with the error, and the walk goes on with what
		// it has.
		e := l.entry(p, d == nil || d.IsDir())
		e.Err, e.SkipKind, e.abs = err, SkipIOError, ""
		l.fill(e.Path)
		if l.opts.keep(e) {
			l.out = append(l.out, e)
		} else {
			l.opts.leftOut(e)
		}
		return nil
	}
	if d.IsDir() {
		if rel, err := filepath.Rel(l.in.Abs, p); err == nil && rel != "." {
			if _, ok := ParsePartitionDir(d.Name()); ok {
				l.dirs = append(l.dirs, filepath.ToSlash(rel))
			}
		}
		return nil
	}
	e := l.entry(p, false)
	l.fill(e.Path)
	if !l.opts.keep(e) {
		l.filtered = append(l.filtered, filteredFile{e, p, d})
		return nil
	}
	l.file(e, p, d)
	return nil
}

// file fills in what the walk says of a file (size, link, special file)
// and lists it.
func (l *lister) file(e *Entry, p string, d fs.DirEntry) {
	skip := func(kind, reason string) { e.SkipKind, e.Skipped, e.abs = kind, reason, "" }
	switch {
	case d.Type()&fs.ModeSymlink != 0:
		l.symlink(e, p, skip)
	case !d.Type().IsRegular():
		skip(SkipSpecial, errNotRegular(d.Type()).Error())
	default:
		fi, err := d.Info()
		if err != nil {
			e.Err, e.SkipKind, e.abs = err, SkipIOError, ""
		} else {
			e.Size = fi.Size()
		}
	}
	l.out = append(l.out, e)
}

// fill marks the dir holding the listed path as not empty; an unreadable
// dir's own entry (its path ends in "/") stands for the dir itself.
func (l *lister) fill(rel string) {
	if d, ok := strings.CutSuffix(rel, "/"); ok {
		l.filled[d] = true
		return
	}
	l.filled[path.Dir(rel)] = true
}

// symlink says why a symlink is not read: none is, since a target inside
// the root is listed under its own path and one outside is no evidence of
// this input.
func (l *lister) symlink(e *Entry, p string, skip func(kind, reason string)) {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		skip(SkipDangling, "dangling symlink (or a loop): not followed")
		return
	}
	if !within(l.in.Abs, target) {
		skip(SkipLinkOutside, fmt.Sprintf("symlink to %s, out of the input root: not followed", target))
		return
	}
	rel, _ := filepath.Rel(l.in.Abs, target)
	rel = filepath.ToSlash(rel)
	fi, err := os.Stat(target)
	switch {
	case err != nil:
		skip(SkipDangling, fmt.Sprintf("symlink to %s, which cannot be read: %v", rel, err))
	case fi.IsDir():
		skip(SkipLinkDir, fmt.Sprintf("symlink to the directory %s: not followed (its files are listed under their own paths)", rel))
	case !fi.Mode().IsRegular():
		skip(SkipSpecial, fmt.Sprintf("symlink to %s, %v", rel, errNotRegular(fi.Mode())))
	default:
		skip(SkipLinkInside, fmt.Sprintf("symlink to %s: read once, under that name", rel))
	}
}

// within reports whether p is root or below it (both absolute, cleaned).
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// IsNestedArchiveName reports whether an archive entry's name says it is
// an archive or a compressed file itself: ksleuth reads one layer of
// archive, and says so of the next rather than pass over it.
func IsNestedArchiveName(name string) bool {
	if IsArchiveName(name) {
		return true
	}
	n := strings.ToLower(name)
	for _, s := range []string{".zip", ".gz", ".zst", ".zstd", ".bz2", ".xz", ".lz4", ".7z", ".tbz", ".tbz2", ".txz", ".rar"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}
