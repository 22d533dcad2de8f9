package analysis

import (
	"cmp"
	"strings"
)

// ComparePartition is the one order of partitions every output and the
// summary follow: by topic, then by partition number, so that t-2 comes
// before t-10 (names compared as strings put t-10 first).
func ComparePartition(aTopic string, aPart int32, bTopic string, bPart int32) int {
	return cmp.Or(strings.Compare(aTopic, bTopic), cmp.Compare(aPart, bPart))
}

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
	return cmp.Or(cmp.Compare(a.Input, b.Input), ComparePartition(a.Topic, a.Partition, b.Topic, b.Partition),
		strings.Compare(a.Dir, b.Dir))
}

// ComparePartitionFirst orders copies by partition, then input and dir:
// the copies of one partition on several brokers sit together, as the
// listings of a cluster print them.
func (a CopyOrder) ComparePartitionFirst(b CopyOrder) int {
	return cmp.Or(ComparePartition(a.Topic, a.Partition, b.Topic, b.Partition), cmp.Compare(a.Input, b.Input),
		strings.Compare(a.Dir, b.Dir))
}
