package dups

import (
	"cmp"
	"slices"
)

// inPartitionOrder puts the copies each partition holds of a group in
// offset order when one of them has no timestamp: the group is in time
// order, where a missing timestamp (-1) sorts first, yet within a
// partition the lower offset was written first. Each partition's copies
// keep the places they hold among the other partitions'. Done per group
// rather than in the sort's comparison, which would stop being a
// consistent order across partitions.
func (d *Detector) inPartitionOrder(ms []rec) {
	type tp struct {
		topic     uint32
		partition int32
	}
	var at map[tp][]int
	for i := range ms {
		if ms[i].ts >= 0 {
			continue
		}
		if at == nil {
			at = map[tp][]int{}
			for j := range ms {
				p := &d.parts[ms[j].part]
				k := tp{p.topicIdx, p.partition}
				at[k] = append(at[k], j)
			}
		}
		break
	}
	for _, idx := range at {
		if len(idx) < 2 || !slices.ContainsFunc(idx, func(j int) bool { return ms[j].ts < 0 }) {
			continue
		}
		members := make([]rec, len(idx))
		for n, j := range idx {
			members[n] = ms[j]
		}
		slices.SortStableFunc(members, func(a, b rec) int { return cmp.Compare(a.off, b.off) })
		for n, j := range idx {
			ms[j] = members[n]
		}
	}
}
