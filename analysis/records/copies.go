package records

import (
	"fmt"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/snapshot"
)

// copies knows which topic-partitions the inputs hold more than one copy
// of (log dirs of several brokers, a -future dir beside its partition),
// so that a record of such a partition names the copy it was read from:
// the same record read from three brokers is otherwise printed three
// times alike.
type copies struct {
	// dirs are the partition dirs holding a live segment of each
	// topic-partition, by input and dir.
	dirs map[copyPartition]map[copyDir]bool
	// archives: some input is an archive, read once and not listed ahead,
	// so with several inputs any partition may have a copy in it.
	archives bool
	inputs   int
}

type copyPartition struct {
	topic     string
	partition int32
}

type copyDir struct {
	input int
	dir   string
}

// countCopies lists the dir and file inputs (lists, by input; nil for an
// archive) once, before any record is read.
func countCopies(inputs []*source.Input, lists [][]*source.Entry) *copies {
	c := &copies{dirs: map[copyPartition]map[copyDir]bool{}, inputs: len(inputs)}
	for i, in := range inputs {
		if in.Kind == source.Archive {
			c.archives = true
			continue
		}
		for _, e := range lists[i] {
			if e.Partition == nil || e.Name.Kind != snapshot.KindLog || e.Name.Suffix != "" || e.Name.Leftover || e.Skipped != "" {
				continue
			}
			k := copyPartition{e.Partition.Topic, e.Partition.Partition}
			if c.dirs[k] == nil {
				c.dirs[k] = map[copyDir]bool{}
			}
			c.dirs[k][copyDir{in.Index, analysis.PartitionDir(e.Path)}] = true
		}
	}
	return c
}

// name is the copy a record of entry e of input in (named src) comes
// from, "" when the inputs hold that partition once: "broker 2" for a log
// dir whose meta.properties names its broker, else the input's source,
// and the partition dir too when the input holds several copies itself.
func (c *copies) name(in *source.Input, src string, e *source.Entry) string {
	if e.Partition == nil {
		return ""
	}
	k := copyPartition{e.Partition.Topic, e.Partition.Partition}
	dirs := c.dirs[k]
	if len(dirs) < 2 && !(c.archives && c.inputs > 1) {
		return ""
	}
	name := src
	if path, id, ok := strings.Cut(src, "#broker="); ok && path != "" {
		name = "broker " + id
	}
	dir := analysis.PartitionDir(e.Path)
	for d := range dirs {
		if d.input == in.Index && d.dir != dir {
			return fmt.Sprintf("%s:%s", name, dir)
		}
	}
	return name
}
