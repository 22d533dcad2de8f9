package check

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/source"
)

// Partition dirs that hold no Kafka file: empty, or holding only files of
// other kinds. No file of theirs reaches a partition, yet a broker always
// keeps an active segment in a partition dir, so each is a copy whose log
// is missing, judged like a dir without a .log file.

// bareDir is such a dir, as its entries name it.
type bareDir struct {
	pd   *source.PartitionDir
	what string // what the dir holds instead of a log: "is empty"
}

// Phrases of bareDir.what.
const (
	bareEmpty = "is empty"
	bareOther = "holds no Kafka file"
)

// EmptyDirs takes the partition dirs that hold no file at all
// (scan.Result.EmptyDirs). Call it before Finish.
func (c *Checker) EmptyDirs(es []*source.Entry) {
	for _, e := range es {
		c.noteBare(e, strings.TrimSuffix(e.Path, "/"), bareEmpty)
	}
}

// noteBare keeps a partition dir of which a file that is not a Kafka file
// (or no file) came: it is bare unless a Kafka file of it comes too.
func (c *Checker) noteBare(e *source.Entry, dir string, what string) {
	if e.Partition == nil || e.Partition.Partition < 0 {
		return
	}
	k := partKey{int32(e.Input), dir}
	if c.bare == nil {
		c.bare = map[partKey]bareDir{}
	}
	if _, ok := c.bare[k]; !ok {
		c.bare[k] = bareDir{e.Partition, what}
	}
}

// addBare makes a partition of each bare dir that lies in a log dir. A
// dir named like a partition dir elsewhere may be a log dir of its own
// (broker-1), with nothing in it to tell.
func (c *Checker) addBare() {
	keys := make([]partKey, 0, len(c.bare))
	for k := range c.bare {
		if c.parts[k] == nil {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b partKey) int { return cmp.Or(cmp.Compare(a.input, b.input), strings.Compare(a.dir, b.dir)) })
	for _, k := range keys {
		if !c.inLogDir(k) {
			continue
		}
		b := c.bare[k]
		p := newPartition(c, k, b.pd.Topic, b.pd.Partition)
		p.dirState, p.bare = b.pd.State, b.what
		c.parts[k] = p
		// In the order of a directory's files: by input, then path.
		at, _ := slices.BinarySearchFunc(c.order, k, func(q *partition, k partKey) int {
			return cmp.Or(cmp.Compare(q.key.input, k.input), strings.Compare(q.key.dir, k.dir))
		})
		c.order = slices.Insert(c.order, at, p)
	}
}

// inLogDir reports whether the dir of k lies in a log dir and is none
// itself: its parent holds a log dir's root files or a partition dir with
// Kafka files, and it holds no root file. A .lock alone says nothing:
// named like a partition dir, a log dir's .lock is taken for a file of one.
func (c *Checker) inLogDir(k partKey) bool {
	if l := c.logDirs[logDirKey(k)]; l != nil && l.rootFiles > 0 {
		return false
	}
	// A dir that holds partition dirs is their log dir, whatever its name
	// (kafka-logs-1, or an input root of a stray file and partitions).
	if slices.ContainsFunc(c.order, func(p *partition) bool {
		return p.key.input == k.input && p.key.dir != k.dir && path.Dir(p.key.dir) == k.dir
	}) {
		return false
	}
	parent := path.Dir(k.dir)
	if l := c.logDirs[logDirKey{k.input, parent}]; l != nil && l.rootFiles > 0 {
		return true
	}
	return slices.ContainsFunc(c.order, func(p *partition) bool { return p.key.input == k.input && path.Dir(p.key.dir) == parent })
}

// noLog says what the partition dir holds instead of a .log file.
func (p *partition) noLog() string {
	if p.bare != "" {
		return p.bare
	}
	return "holds no .log file"
}
