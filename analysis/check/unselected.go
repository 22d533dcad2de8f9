package check

import (
	"path"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// Unselected takes the partition dirs a topic filter left out (one entry
// of each, scan.Result.Unselected), before Finish. They are not checked,
// but a log dir's checkpoints are compared with every dir it holds: a
// partition the filter hid is not one missing from the log dir.
func (c *Checker) Unselected(es []*source.Entry) {
	for _, e := range es {
		if e.Partition == nil || e.Partition.State != "" {
			continue // -delete, -future and -stray dirs are not what checkpoints describe
		}
		dir := strings.TrimSuffix(e.Path, "/")
		if !strings.HasSuffix(e.Path, "/") {
			dir = analysis.PartitionDir(e.Path)
		}
		ld := path.Dir(dir)
		if dir == "." {
			ld = ".."
		}
		k := logDirKey{int32(e.Input), ld}
		if c.unselected == nil {
			c.unselected = map[logDirKey]map[partName]bool{}
		}
		if c.unselected[k] == nil {
			c.unselected[k] = map[partName]bool{}
		}
		c.unselected[k][partName{e.Partition.Topic, e.Partition.Partition}] = true
	}
}
