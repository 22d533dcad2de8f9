package source

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/ksleuth/ksleuth/snapshot"
)

// A remote store root is where Kafka's LocalTieredStorage keeps the
// copies of tiered segments (KIP-405): a dir per partition named
// <topic>-<partition>-<topic id>, and in it, for each segment,
// <start offset, 20 digits>-<segment id>.<suffix>. Ids are 22 characters
// of URL-safe base64, which may hold '-' and '_': they are cut by length,
// not at a dash.

// RemoteSuffixes are the suffixes of a remote segment's files, in the
// order they are listed.
var RemoteSuffixes = []string{"log", "index", "timeindex", "snapshot", "leader_epoch_checkpoint", "txnindex"}

// RemoteStoreDir is the dir LocalTieredStorage creates under its
// configured dir; a root given above it is read from it.
const RemoteStoreDir = "kafka-tiered-storage"

const idLen = 22 // a Kafka Uuid in base64 without padding

// RemoteDir is a parsed remote partition dir name.
type RemoteDir struct {
	Topic     string
	Partition int32
	TopicID   string
}

// ParseRemoteDir parses "<topic>-<partition>-<topic id>".
func ParseRemoteDir(name string) (RemoteDir, bool) {
	if len(name) < idLen+4 || name[len(name)-idLen-1] != '-' || !isID(name[len(name)-idLen:]) {
		return RemoteDir{}, false
	}
	pd, ok := ParsePartitionDir(name[:len(name)-idLen-1])
	if !ok || pd.State != "" {
		return RemoteDir{}, false
	}
	return RemoteDir{Topic: pd.Topic, Partition: pd.Partition, TopicID: name[len(name)-idLen:]}, true
}

// RemoteFile is a parsed remote segment file name.
type RemoteFile struct {
	StartOffset int64
	SegmentID   string
	Suffix      string
}

// ParseRemoteFile parses "<20 digits>-<segment id>.<suffix>".
func ParseRemoteFile(name string) (RemoteFile, bool) {
	const digits = 20
	dot := digits + 1 + idLen
	if len(name) < dot+2 || name[digits] != '-' || name[dot] != '.' || !isID(name[digits+1:dot]) {
		return RemoteFile{}, false
	}
	off, err := strconv.ParseInt(name[:digits], 10, 64)
	if err != nil || off < 0 {
		return RemoteFile{}, false
	}
	return RemoteFile{StartOffset: off, SegmentID: name[digits+1 : dot], Suffix: name[dot+1:]}, true
}

func isID(s string) bool {
	if len(s) != idLen {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// RemoteEntry is one regular file of a remote store root.
type RemoteEntry struct {
	Dir  RemoteDir
	File RemoteFile
	// Path is slash-separated, relative to the root given.
	Path string
	Size int64
	abs  string
}

// Open opens the file read-only, refusing anything that is not a regular
// file by then.
func (e *RemoteEntry) Open() (*os.File, error) { return openRegular(e.abs) }

// IsRemoteRoot reports whether dir holds remote partition dirs (or a
// kafka-tiered-storage dir that does) and no log dir's partition dirs.
func IsRemoteRoot(dir string) bool {
	if fi, err := os.Lstat(filepath.Join(dir, RemoteStoreDir)); err == nil && fi.IsDir() {
		dir = filepath.Join(dir, RemoteStoreDir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	found := false
	for _, d := range ents {
		if !d.IsDir() {
			continue
		}
		if _, ok := ParseRemoteDir(d.Name()); ok {
			found = true
		} else if _, ok := ParsePartitionDir(d.Name()); ok {
			return false
		}
	}
	return found
}

// ListRemote lists the segment files of a remote store root, sorted by
// path. Only regular files in remote partition dirs whose names parse are
// listed; symlinks are never followed. Other names are returned in
// others, so that they can be reported rather than passed over.
func ListRemote(root string) (files []RemoteEntry, others []string, err error) {
	base := ""
	if fi, err := os.Lstat(filepath.Join(root, RemoteStoreDir)); err == nil && fi.IsDir() {
		base = RemoteStoreDir + "/"
	}
	dirs, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(base)))
	if err != nil {
		return nil, nil, err
	}
	for _, d := range dirs {
		rd, ok := ParseRemoteDir(d.Name())
		if !ok || !d.IsDir() {
			others = append(others, base+d.Name())
			continue
		}
		ents, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(base), d.Name()))
		if err != nil {
			return nil, nil, err
		}
		for _, f := range ents {
			rel := base + d.Name() + "/" + f.Name()
			rf, ok := ParseRemoteFile(f.Name())
			info, ierr := f.Info()
			if !ok || ierr != nil || !info.Mode().IsRegular() {
				others = append(others, rel)
				continue
			}
			files = append(files, RemoteEntry{Dir: rd, File: rf, Path: rel, Size: info.Size(), abs: filepath.Join(root, filepath.FromSlash(rel))})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	sort.Strings(others)
	return files, others, nil
}

// RemoteSuffixRank is the place of a suffix in RemoteSuffixes (len for
// one not there).
func RemoteSuffixRank(s string) int {
	for i, x := range RemoteSuffixes {
		if x == s {
			return i
		}
	}
	return len(RemoteSuffixes)
}

// listRemote lists a remote store root's segment files as entries of the
// partition their dir names, so that the scan reads a remote segment's
// .log, indexes and snapshot as it reads a log dir's: their names carry
// the start offset (snapshot.Name.Offset) and the segment id
// (snapshot.Name.SegmentID). The remote partition dirs' parent is their
// log dir. Names that are no remote segment file are left to ListRemote's
// others, which scan.RemoteOthers reports.
func (in *Input) listRemote(opts Options) (files, emptyDirs []*Entry, err error) {
	rs, _, err := ListRemote(in.Abs)
	if err != nil {
		return nil, nil, err
	}
	parts := map[string]*PartitionDir{}
	for i := range rs {
		r := &rs[i]
		dir := path.Dir(r.Path)
		pd := parts[dir]
		if pd == nil {
			pd = &PartitionDir{Topic: r.Dir.Topic, Partition: r.Dir.Partition}
			parts[dir] = pd
		}
		e := &Entry{Input: in.Index, Path: r.Path, Size: r.Size, Name: snapshot.ParseName(path.Base(r.Path)),
			Partition: pd, LogDir: path.Dir(dir), abs: r.abs}
		if !opts.keep(e) {
			opts.leftOut(e)
			continue
		}
		files = append(files, e)
	}
	return files, nil, nil
}
