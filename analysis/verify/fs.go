package verify

import (
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/snapshot"
)

// OSFS is an fs.FS over the operating system's files that, unlike
// os.DirFS, takes any path as given (absolute or relative), so that
// findings name files the way the user typed them. It only ever opens files
// read-only.
type OSFS struct{}

// Open opens name read-only.
func (OSFS) Open(name string) (fs.File, error) { return os.Open(name) }

// ReadDir lists name, sorted by file name.
func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// Stat describes name.
func (OSFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// TargetKind says what a path given to verify is.
type TargetKind int

const (
	TargetFile      TargetKind = iota // a single file
	TargetPartition                   // a <topic>-<partition> directory
	TargetLogDir                      // a broker log dir holding partition directories
)

func (k TargetKind) String() string {
	return [...]string{"file", "partition dir", "log dir"}[k]
}

// Target is one thing to verify.
type Target struct {
	Kind TargetKind
	Path string
}

// partitionDirRE matches <topic>-<partition>, optionally with the
// .<uuid>-delete, -future or -stray forms (kafka-formats.md §1.2).
var partitionDirRE = regexp.MustCompile(`^[a-zA-Z0-9._-]+-[0-9]+(\.[0-9a-f]{32}-(delete|future|stray))?$`)

// IsPartitionDirName reports whether name has the form of a partition dir.
func IsPartitionDirName(name string) bool { return partitionDirRE.MatchString(name) }

// Discover classifies p: a file, a partition dir, a log dir (a directory
// holding partition dirs or log-dir state files) or, failing all, a
// directory to search: its subdirectories are discovered in turn, so a
// tree holding several log dirs gives one target per log dir.
func Discover(fsys fs.FS, p string) ([]Target, error) {
	st, err := fs.Stat(fsys, p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []Target{{TargetFile, p}}, nil
	}
	ents, err := fs.ReadDir(fsys, p)
	if err != nil {
		return nil, err
	}
	var subdirs []string
	hasRootState := false
	for _, e := range ents {
		if e.IsDir() {
			subdirs = append(subdirs, e.Name())
			continue
		}
		n := snapshot.ParseName(e.Name())
		if n.Kind.IsOffsetCheckpoint() || n.Kind == snapshot.KindMetaProperties || n.Kind == snapshot.KindCleanShutdown {
			hasRootState = true
		}
	}
	switch {
	case holdsPartitionFiles(ents):
		return []Target{{TargetPartition, p}}, nil
	case hasRootState:
		return []Target{{TargetLogDir, p}}, nil
	case len(subdirs) == 0 && IsPartitionDirName(path.Base(p)):
		return []Target{{TargetPartition, p}}, nil // an empty partition dir
	}
	for _, d := range subdirs {
		if !IsPartitionDirName(d) {
			continue
		}
		if sub, err := fs.ReadDir(fsys, path.Join(p, d)); err == nil && holdsPartitionFiles(sub) {
			return []Target{{TargetLogDir, p}}, nil
		}
	}
	slices.Sort(subdirs)
	var out []Target
	for _, d := range subdirs {
		if strings.HasPrefix(d, ".") {
			continue
		}
		t, err := Discover(fsys, path.Join(p, d))
		if err != nil {
			return nil, err
		}
		out = append(out, t...)
	}
	return out, nil
}

// holdsPartitionFiles reports whether a directory listing has files that
// only a partition dir holds.
func holdsPartitionFiles(ents []fs.DirEntry) bool {
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		switch snapshot.ParseName(e.Name()).Kind {
		case snapshot.KindLog, snapshot.KindIndex, snapshot.KindTimeIndex, snapshot.KindTxnIndex, snapshot.KindSnapshot,
			snapshot.KindLeaderEpochCheckpoint, snapshot.KindPartitionMetadata, snapshot.KindQuorumState, snapshot.KindKRaftSnapshot:
			return true
		}
	}
	return false
}
