package scan

import (
	"fmt"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// copyCount knows, from the inputs listed ahead, which partitions only
// one live partition dir of the run holds. Their records are compared
// with no other copy's, so the replica comparison need not keep their
// fingerprints (EntryBatch.SoleCopy): about 5 % of the CPU samples of a
// scan of one broker's lz4 segments, and 16 bytes a record of memory.
type copyCount struct {
	known bool
	dirs  map[topicPartition]int // live partition dirs of each partition
}

// listAhead lists the dir and file inputs before the scan: for the
// comparison of byte-identical copies to find the later inputs' copies of
// a file (samepass.go), and to know the partitions only one dir holds.
// emptyDirs are the partition dirs of those inputs that hold no file.
func listAhead(inputs []*source.Input, opts source.Options, cfg Config) (listed map[*source.Input][]*source.Entry, emptyDirs []*source.Entry) {
	listed = map[*source.Input][]*source.Entry{}
	for _, in := range inputs {
		if in.Kind != source.Archive {
			if entries, empty, err := in.List(opts); err == nil {
				listed[in] = entries
				emptyDirs = append(emptyDirs, empty...)
				if cfg.same != nil && len(inputs) > 1 {
					cfg.same.listLater(entries)
				}
			}
		}
	}
	cfg.copies.count(inputs, listed)
	return listed, emptyDirs
}

// count counts the live partition dirs of the listed inputs; nothing is
// known when an input was not listed (an archive, or a listing that
// failed and is retried on its turn).
func (c *copyCount) count(inputs []*source.Input, listed map[*source.Input][]*source.Entry) {
	for _, in := range inputs {
		if listed[in] == nil {
			return
		}
	}
	c.known, c.dirs = true, map[topicPartition]int{}
	seen := map[*source.PartitionDir]bool{}
	for _, in := range inputs {
		for _, e := range listed[in] {
			pd := e.Partition
			if pd == nil || pd.State != "" || seen[pd] {
				continue
			}
			seen[pd] = true
			c.dirs[topicPartition{pd.Topic, pd.Partition}]++
		}
	}
}

// sole reports whether e's partition dir is known to be the only live one
// of its partition in the run.
func (c *copyCount) sole(e *source.Entry) bool {
	if c == nil || !c.known || e.Partition == nil || e.Partition.State != "" {
		return false
	}
	return c.dirs[topicPartition{e.Partition.Topic, e.Partition.Partition}] == 1
}

// summarizeEmptyDirs gives each empty partition dir a line of the
// partition summary, as a dir whose files hold no batch has.
func (s *scanner) summarizeEmptyDirs() {
	for _, e := range s.emptyDirs {
		if k := analysis.PartitionOf(int32(e.Input), e.Path); s.parts[k] == nil {
			s.parts[k] = &PartitionSummary{PartitionSummary: analysis.PartitionSummary{Input: int32(e.Input), Dir: k.Dir,
				Topic: e.Partition.Topic, Partition: e.Partition.Partition, DirState: e.Partition.State},
				logDir: fmt.Sprintf("%d\x00%s", e.Input, e.LogDir)}
		}
	}
}
