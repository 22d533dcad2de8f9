package dups

import (
	"fmt"
	"time"
)

// DefaultResendInFlight is how long before an earlier session's last
// write a record may have been created and still be in flight when the
// session ended: the Java client's delivery.timeout.ms default. A record
// created longer ago was acknowledged or failed by then, so a later
// session that writes it again did not resend it after a crash.
const DefaultResendInFlight = 2 * time.Minute

// inFlight is the bound in milliseconds; 0 when there is none.
func (o *Options) inFlight() int64 {
	switch {
	case o.ResendInFlight == 0:
		return DefaultResendInFlight.Milliseconds()
	case o.ResendInFlight < 0:
		return 0
	}
	return o.ResendInFlight.Milliseconds()
}

// sessKey is one producer session (PID and epoch) of one cluster, over
// every partition of the inputs.
type sessKey struct {
	pid     int64
	epoch   int16
	cluster uint32
}

// partEnd is a session's last write (by timestamp) in one partition,
// counted once however many replicas of it the inputs hold.
type partEnd struct {
	lp   uint32 // logical partition, see Detector.logical
	last int64
}

// sessEnd is where and when a session last wrote.
type sessEnd struct {
	last  int64
	parts []partEnd
}

// coverKey says that the later session (pid, epoch) resent the tail of
// the earlier session's (refPID, refEp) writes in logical partition lp.
type coverKey struct {
	pid, refPID  int64
	epoch, refEp int16
	lp           uint32
}

// indexSessions derives, from the spans, each partition dir's logical
// partition (topic and partition of one cluster) and each session's last
// write in every logical partition. Both are as large as the spans
// themselves at most, which the detector holds already, so they stay in
// memory at every budget.
func (d *Detector) indexSessions() {
	clusters := d.clusterRanks()
	type lkey struct {
		cluster, topic uint32
		partition      int32
	}
	ids := map[lkey]uint32{}
	d.logical = make([]uint32, len(d.parts))
	d.clusterOf = clusters
	for i := range d.parts {
		k := lkey{clusters[i], d.parts[i].topicIdx, d.parts[i].partition}
		id, ok := ids[k]
		if !ok {
			id = uint32(len(ids))
			ids[k] = id
		}
		d.logical[i] = id
	}
	d.sessions = map[sessKey]*sessEnd{}
	d.covered = map[coverKey]bool{}
	for k, s := range d.spans {
		if k.epoch == anyEpoch || k.pid < 0 || s.lastTs < 0 {
			continue
		}
		sk := sessKey{k.pid, int16(k.epoch), clusters[k.part]}
		e := d.sessions[sk]
		if e == nil {
			e = &sessEnd{last: s.lastTs}
			d.sessions[sk] = e
		}
		e.last = max(e.last, s.lastTs)
		lp := d.logical[k.part]
		found := false
		for i := range e.parts {
			if e.parts[i].lp == lp {
				e.parts[i].last, found = max(e.parts[i].last, s.lastTs), true
			}
		}
		if !found {
			e.parts = append(e.parts, partEnd{lp, s.lastTs})
		}
	}
}

// cover notes that chain f reaches the tail of its earlier session's
// writes in its partition.
func (d *Detector) cover(f *chainFacts) {
	d.covered[coverKey{pid: f.laterPID, refPID: f.refPID, epoch: f.laterEp, refEp: f.refEp, lp: d.logical[f.refPart]}] = true
}

// sessionEnd fills in how long the earlier session of chain f went on
// writing elsewhere after the chain's last earlier record, in how many
// other partitions, and in how many of those beyond the in-flight bound
// the later session did not resend the tail. A crash leaves unacknowledged
// what was sent last; what was created longer than the bound before the
// session's last write was acknowledged or failed before its end, unless
// the later session replayed a stretch reaching that end in every
// partition (an application restarting from its own checkpoint).
func (d *Detector) sessionEnd(f *chainFacts) {
	bound := d.opts.inFlight()
	if bound <= 0 || f.refEndTs < 0 || f.refPID < 0 {
		return
	}
	e := d.sessions[sessKey{f.refPID, f.refEp, d.clusterOf[f.refPart]}]
	if e == nil || e.last-f.refEndTs <= bound {
		return
	}
	own := d.logical[f.refPart]
	for _, p := range e.parts {
		if p.lp == own || p.last <= f.refEndTs {
			continue
		}
		f.laterParts++
		if p.last-f.refEndTs > bound && !d.covered[coverKey{pid: f.laterPID, refPID: f.refPID, epoch: f.laterEp, refEp: f.refEp, lp: p.lp}] {
			f.uncovered++
		}
	}
	if f.uncovered > 0 {
		f.after = e.last - f.refEndTs
	}
}

// inFlightText is why chain f's copies were not in flight when the
// earlier session ended, for ref's writer and m's.
func inFlightText(m, ref *rec, f *chainFacts) string {
	s := fmt.Sprintf("%s wrote for %s more in %d other partition%s after the run's last record: it was not in flight when the session ended",
		pidName(ref), fmtGap(f.after), f.laterParts, plural(int(f.laterParts), "", "s"))
	if resent := f.laterParts - f.uncovered; resent > 0 {
		s += fmt.Sprintf(" (%s resent the tail of %d of them, not of the other %d)", pidName(m), resent, f.uncovered)
	}
	return s
}
