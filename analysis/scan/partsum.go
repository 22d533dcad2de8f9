package scan

import "slices"

// idSet is a set of producer ids that costs a slice while it is small: a
// partition summary holds one until the run ends, and a broker's log dir
// holds tens of thousands of partitions, most of them written by a few
// producers. Past smallIDs ids it turns into a map.
type idSet struct {
	small []int64
	big   map[int64]struct{}
}

const smallIDs = 32

func (s *idSet) add(id int64) {
	if s.big != nil {
		s.big[id] = struct{}{}
		return
	}
	if slices.Contains(s.small, id) {
		return
	}
	if len(s.small) < smallIDs {
		s.small = append(s.small, id)
		return
	}
	s.big = make(map[int64]struct{}, 2*smallIDs)
	for _, x := range s.small {
		s.big[x] = struct{}{}
	}
	s.big[id] = struct{}{}
	s.small = nil
}

func (s *idSet) len() int {
	if s.big != nil {
		return len(s.big)
	}
	return len(s.small)
}

// addCodec adds c to the few codecs of a partition, once.
func addCodec(codecs []string, c string) []string {
	if slices.Contains(codecs, c) {
		return codecs
	}
	return append(codecs, c)
}
