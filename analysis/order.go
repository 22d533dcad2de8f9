package analysis

import (
	"cmp"
	"strings"
)

// CopyOrder is the order of partition copies that the per-partition
// tables and listings follow: input, topic, partition, then the dir.
type CopyOrder struct {
	Input     int32
	Topic     string
	Partition int32
	Dir       string
}

// Compare is negative when a comes before b, positive after, and zero for
// the same copy.
func (a CopyOrder) Compare(b CopyOrder) int {
	return cmp.Or(cmp.Compare(a.Input, b.Input), strings.Compare(a.Topic, b.Topic),
		cmp.Compare(a.Partition, b.Partition), strings.Compare(a.Dir, b.Dir))
}
