package replicas

import (
	"path"

	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// The partition dirs of a remote store (tiered storage, KIP-405) are not
// a broker's copy: every broker of the cluster reads the one remote log
// below its own local segments. They are not compared as replicas (a
// remote run ending where the local segments begin is no lag); what they
// share with a local copy, the offsets still on the broker's disk and
// already copied to remote storage, is one log, and must hold the same
// batches.

// remoteTopicID is the topic id a remote partition dir's name gives, ""
// for a dir that is not a remote one.
func remoteTopicID(dir string) string {
	rd, ok := source.ParseRemoteDir(path.Base(dir))
	if !ok {
		return ""
	}
	return rd.TopicID
}

// splitRemote returns the copies that are a broker's, and the remote
// store's partition dirs apart.
func (c *Collector) splitRemote() (local, remote []*replica) {
	for _, r := range c.order {
		if remoteTopicID(r.key.dir) != "" {
			remote = append(remote, r)
		} else {
			local = append(local, r)
		}
	}
	return local, remote
}

// remoteOverlaps compares each local copy with the remote dirs of its
// partition (same topic, partition and, when the copy has one, topic
// id) batch by batch, where both hold a batch at the same base offset:
// one finding per local copy whose batches differ (in CRC or last
// offset), at the first that does. Damaged batches are the checker's
// findings, not a difference.
func (c *Collector) remoteOverlaps(res *Result, local, remote []*replica) {
	for _, rm := range remote {
		id := remoteTopicID(rm.key.dir)
		byBase := make(map[int64]*batch, len(rm.batches))
		for i := range rm.batches {
			if b := &rm.batches[i]; !b.damaged {
				byBase[b.base] = b
			}
		}
		for _, l := range local {
			if l.topic != rm.topic || l.part != rm.part || l.topicID != "" && l.topicID != id {
				continue
			}
			c.remoteOverlap(res, l, rm, byBase)
		}
	}
}

func (c *Collector) remoteOverlap(res *Result, l, rm *replica, byBase map[int64]*batch) {
	var first, other *batch
	n, same := 0, 0
	lo, hi := int64(-1), int64(-1)
	for i := range l.batches {
		b := &l.batches[i]
		o := byBase[b.base]
		if o == nil || b.damaged {
			continue
		}
		if o.crc == b.crc && o.last == b.last {
			same++
			continue
		}
		if first == nil {
			first, other, lo = b, o, b.base
		}
		n++
		hi = max(hi, b.last)
	}
	if first == nil {
		return
	}
	w := finding.Where{Input: l.key.input, Topic: l.topic, Partition: l.part, File: l.segs[first.seg]}
	res.Findings = append(res.Findings, finding.New(w, finding.KindRemoteOverlapDiffers, first.pos, first.base,
		"%d batch(es) in offsets %d..%d differ from the remote store's batches at the same offsets (%d others agree): the first at offset %d "+
			"has CRC %d and last offset %d here, CRC %d and last offset %d in %s of %s",
		n, lo, hi, same, first.base, first.crc, first.last, other.crc, other.last, rm.segs[other.seg], c.source(rm.key.input)))
}
