// Package source finds the files of Kafka log dirs given on a command line:
// log dirs (one or several, e.g. one per broker), partition dirs, single
// files, and archives (.tar, .tar.gz/.tgz, .tar.zst/.tzst) read as streams.
//
// Nothing is extracted or written anywhere: directory inputs are listed and
// their files opened read-only; an archive is read once, front to back, and
// each entry is handed to the caller as a stream while it is read, in
// whatever order the archive holds them. Symlinks are never followed out of
// an input root (and never followed into directories at all).
package source

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/snapshot"
)

// InputKind says how an input is read.
type InputKind int

const (
	Dir     InputKind = iota // a log dir, a partition dir, or any dir above them
	File                     // a single file
	Archive                  // a tar stream, maybe gzip or zstd compressed
	// Remote is a remote store root of tiered storage (remote.go), told
	// apart from a log dir by its dir names; its files are read by
	// ListRemote, not listed with a log dir's.
	Remote
)

func (k InputKind) String() string {
	switch k {
	case Dir:
		return "dir"
	case File:
		return "file"
	case Remote:
		return "remote"
	}
	return "archive"
}

// Input is one PATH argument.
type Input struct {
	Index int
	// Path as given on the command line.
	Path string
	Kind InputKind
	// Abs is the absolute path with symlinks resolved.
	Abs string
	// Reader, when set, is the stream an archive input is read from
	// instead of opening Abs: standard input for the path "-".
	Reader io.Reader
}

// Options filter what Files and Stream return.
type Options struct {
	// Topic keeps only files of partition dirs whose topic matches; files
	// outside partition dirs (meta.properties, checkpoints) are always kept.
	Topic *regexp.Regexp
	// Evidence names the topics whose files are kept though Topic does
	// not match them: the internal topics that bear on the partitions
	// selected (who owns a producer id, which groups consumed what).
	Evidence func(topic string) bool
	// Unselected, when set, gets each entry the topic filter leaves out
	// (files and empty partition dirs): a log dir's checkpoints are
	// checked against every partition dir it holds, selected or not.
	Unselected func(e *Entry)
	// EmptyDir, when set, gets from Stream each partition dir of the
	// archive that holds no file (archivedirs.go), once the archive is
	// read to its end or to where it ended early; its Path ends in "/".
	EmptyDir func(e *Entry)
}

// PartitionDir is a parsed partition directory name.
type PartitionDir struct {
	Topic     string
	Partition int32
	// State is "delete", "future" or "stray" for those special forms.
	State string
}

var topicChars = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)

// ParsePartitionDir parses "<topic>-<partition>" and the special forms
// "<topic>-<partition>.<32 hex>-delete|-future|-stray". The partition is
// the text after the last '-', so topics may contain dots and dashes.
func ParsePartitionDir(name string) (PartitionDir, bool) {
	var pd PartitionDir
	for _, st := range []string{"delete", "future", "stray"} {
		if rest, ok := strings.CutSuffix(name, "-"+st); ok {
			dot := strings.LastIndexByte(rest, '.')
			if dot < 0 || !isHex32(rest[dot+1:]) {
				return pd, false
			}
			name, pd.State = rest[:dot], st
			break
		}
	}
	dash := strings.LastIndexByte(name, '-')
	if dash <= 0 || dash == len(name)-1 {
		return pd, false
	}
	num := name[dash+1:]
	for _, c := range num {
		if c < '0' || c > '9' {
			return pd, false
		}
	}
	p, err := strconv.ParseInt(num, 10, 32)
	if err != nil {
		return pd, false
	}
	topic := name[:dash]
	if len(topic) > 249 || !topicChars.MatchString(topic) {
		return pd, false
	}
	pd.Topic, pd.Partition = topic, int32(p)
	return pd, true
}

func isHex32(s string) bool {
	if len(s) != 32 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// Entry is one file of an input.
type Entry struct {
	Input int
	// Path is slash-separated and relative to the input root: for a dir
	// input the path below it, for a file input its base name, for an
	// archive the cleaned entry name.
	Path string
	Size int64
	// Name is the parsed base name: kind, in-transit suffix, offset.
	Name snapshot.Name
	// Partition is the partition dir the file is in, nil when it is in
	// none (a log-dir root file, or a file given on its own elsewhere).
	Partition *PartitionDir
	// LogDir is the slash path (relative to the input root) of the log dir
	// the file belongs to: the parent of its partition dir, or the dir of a
	// root file. For a partition dir given as the input it is "..".
	LogDir string
	// Skipped is set for entries that are listed but not read (links,
	// FIFOs, devices, sockets, archives inside archives), with the reason;
	// SkipKind is one of the Skip* kinds.
	Skipped  string
	SkipKind string
	// Err is set for a path that could not be read (an unreadable dir or
	// file, a path too long for the system): the entry stands for it in
	// the listing, and Open returns Err.
	Err error
	// Warnings are problems with an archive entry's name or place in the
	// archive (a name leaving the archive root, a name seen before). The
	// entry is still read: its bytes are evidence too.
	Warnings []Warning

	abs string // dir and file inputs: the file to open
}

// Open opens a dir or file input's entry read-only. It never opens a
// FIFO, device or socket, nor follows a symlink that took the file's place
// after it was listed: those are errors.
func (e *Entry) Open() (*os.File, error) {
	if e.Err != nil {
		return nil, e.Err
	}
	if e.abs == "" {
		return nil, errors.New("source: archive entries cannot be reopened")
	}
	return openRegular(e.abs)
}

// Classify builds the inputs from PATH arguments.
func Classify(paths []string) ([]*Input, error) { return ClassifyStdin(paths, nil) }

// ClassifyStdin is Classify where the path "-" stands for a tar archive
// (maybe gzip or zstd compressed) read from stdin, once; a nil stdin
// makes "-" a path like any other.
func ClassifyStdin(paths []string, stdin io.Reader) ([]*Input, error) {
	var ins []*Input
	for i, p := range paths {
		if p == "-" && stdin != nil {
			ins = append(ins, &Input{Index: i, Path: p, Kind: Archive, Abs: p, Reader: stdin})
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
		in := &Input{Index: i, Path: p, Abs: abs}
		switch {
		case fi.IsDir() && IsRemoteRoot(abs):
			in.Kind = Remote
		case fi.IsDir():
			in.Kind = Dir
		case !fi.Mode().IsRegular():
			return nil, fmt.Errorf("%s: not a regular file or directory", p)
		case IsArchiveName(p):
			in.Kind = Archive
		default:
			in.Kind = File
		}
		ins = append(ins, in)
	}
	return ins, nil
}

// IsArchiveName reports whether a file name says tar, tar.gz/tgz or
// tar.zst/tzst.
func IsArchiveName(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{".tar", ".tar.gz", ".tgz", ".tar.zst", ".tzst", ".tar.zstd"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

// describe fills the derived fields of an entry from its path. rootName is
// the base name of the input root, used when the path has no directory.
//
// parts, when not nil, interns the partition dirs by path: the entries of
// one dir share one PartitionDir, and rows that point at its Topic and
// Partition (package scan) cost nothing per file.
func describe(e *Entry, rootName string, parts map[string]*PartitionDir) {
	dir, base := path.Split(e.Path)
	dir = strings.TrimSuffix(dir, "/")
	e.Name = snapshot.ParseName(base)
	pdName, above := path.Base(dir), path.Dir(dir)
	if dir == "" {
		pdName, above = rootName, ".."
	}
	// Files only a log dir's root holds say their dir is a log dir, even
	// one named like a partition dir (broker-1, kafka-logs-0).
	if pd := parts[dir]; pd != nil && !logDirRootKind(e.Name.Kind) {
		e.Partition, e.LogDir = pd, above
		return
	}
	if pd, ok := partitionDirOf(pdName); ok && pdName != "" && !logDirRootKind(e.Name.Kind) {
		e.Partition = &pd
		e.LogDir = above
		if parts != nil {
			parts[dir] = e.Partition
		}
		return
	}
	if dir == "" {
		e.LogDir = "."
	} else {
		e.LogDir = dir
	}
}

// partitionDirOf parses a dir name as a log dir's partition dir or, that
// failing, as a remote store's (<topic>-<partition>-<topic id>): a remote
// root inside a dir or an archive is read as one given on its own.
func partitionDirOf(name string) (PartitionDir, bool) {
	if pd, ok := ParsePartitionDir(name); ok {
		return pd, true
	}
	rd, ok := ParseRemoteDir(name)
	return PartitionDir{Topic: rd.Topic, Partition: rd.Partition}, ok
}

// logDirRootKind tells the kinds of files that live in a log dir's root.
func logDirRootKind(k snapshot.Kind) bool {
	switch k {
	case snapshot.KindMetaProperties, snapshot.KindCleanShutdown, snapshot.KindBootstrapCheckpoint, snapshot.KindLock:
		return true
	}
	return k.IsOffsetCheckpoint()
}

// logDirsOf applies the log dir rule to a whole listing: a dir that holds
// a log dir's own files is a log dir, even one named like a partition dir
// (broker-1, kafka-logs-0). describe sees one file at a time; the listing
// of a dir input sees them all, and so the dir's other files too (its
// .lock, a stray backup) belong to no partition.
func logDirsOf(es []*Entry) map[string]bool {
	dirs := map[string]bool{}
	for _, e := range es {
		if logDirRootKind(e.Name.Kind) {
			dirs[entryDir(e.Path)] = true
		}
	}
	return dirs
}

// claimLogDir takes e out of the partition its dir's name says when that
// dir is one of logDirs, and reports whether it did.
func claimLogDir(e *Entry, logDirs map[string]bool) bool {
	d := entryDir(e.Path)
	if e.Partition == nil || !logDirs[d] {
		return false
	}
	e.Partition, e.LogDir = nil, cmp.Or(d, ".")
	return true
}

// entryDir is the dir of an entry's path ("" at the input root); a dir's
// own entry ("x/") is in x.
func entryDir(p string) string {
	d, _ := path.Split(p)
	return strings.TrimSuffix(d, "/")
}

func (o Options) keep(e *Entry) bool {
	if o.Topic == nil || e.Partition == nil || o.Topic.MatchString(e.Partition.Topic) {
		return true
	}
	return o.Evidence != nil && o.Evidence(e.Partition.Topic)
}

// leftOut hands an entry the topic filter left out to Unselected.
func (o Options) leftOut(e *Entry) {
	if o.Unselected != nil && e.Partition != nil {
		o.Unselected(e)
	}
}

// Within reports whether path p lies inside dir root, after making both
// absolute and resolving the symlinks of their existing parts.
func Within(root, p string) bool {
	return within(resolve(root), resolve(p))
}

// resolve makes p absolute and resolves symlinks in its longest existing
// prefix (p itself may not exist yet).
func resolve(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	rest := ""
	for cur := abs; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// ErrStop may be returned by a Stream callback to end the stream early
// without error.
var ErrStop = errors.New("source: stop")

// Warning is one problem with an archive entry, for the anomalies table.
type Warning struct {
	Kind    finding.Kind // unsafe-path, duplicate-entry, archive-trailing-data
	Message string
}

// unsafeName reports whether a slash-separated archive name is absolute
// (or has a drive letter) or has a ".." element.
func unsafeName(name string) bool {
	name = slashed(name)
	if strings.HasPrefix(name, "/") || len(name) >= 2 && name[1] == ':' {
		return true
	}
	for _, el := range strings.Split(name, "/") {
		if el == ".." {
			return true
		}
	}
	return false
}

// slashed turns an archive name's backslashes into slashes: archives
// written on Windows may use either.
func slashed(name string) string { return strings.ReplaceAll(name, "\\", "/") }

// cleanArchiveName is an archive entry's name as a path inside the
// archive root ("" for the root itself).
func cleanArchiveName(raw string) string {
	name := strings.TrimLeft(path.Clean("/"+slashed(raw)), "/")
	if name == "." {
		return ""
	}
	return name
}

// ReadCloser pairs an archive's decompressed stream with what must be
// closed after it.
type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }

var _ io.ReadCloser = readCloser{}
