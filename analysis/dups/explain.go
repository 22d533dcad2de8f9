package dups

import (
	"bytes"
	"fmt"

	"github.com/ksleuth/ksleuth/analysis"
)

func (d *Detector) name(r *rec) string {
	p := &d.parts[r.part]
	return fmt.Sprintf("%s-%d@%d", p.topic, p.partition, r.off)
}

func (d *Detector) pname(r *rec) string {
	p := &d.parts[r.part]
	return fmt.Sprintf("%s-%d", p.topic, p.partition)
}

func who(r *rec) string {
	if r.pid < 0 {
		return "a non-idempotent producer (PID -1)"
	}
	return fmt.Sprintf("PID %d (epoch %d)", r.pid, r.epoch)
}

func pidName(r *rec) string {
	if r.pid < 0 {
		return "PID -1"
	}
	return fmt.Sprintf("PID %d", r.pid)
}

// maxNamedPIDs is how many later writers a first row's explanation names.
const maxNamedPIDs = 16

func (d *Detector) firstExplanation(st *groupStats) string {
	first, later := &st.first, st.n-1
	s := fmt.Sprintf("first copy, written by %s at %s; %d later cop%s", who(first), d.name(first), later, plural(later, "y", "ies"))
	switch {
	case st.more:
		// A heartbeat repeated across a year of producer restarts is
		// written under thousands of PIDs: the first few are named.
		s += fmt.Sprintf(" by PID %s and others", joinInts(st.pids))
	case len(st.pids) > 0:
		s += fmt.Sprintf(" by PID %s", joinInts(st.pids))
	default:
		s += " by the same producer"
	}
	return s
}

// reasonKind is why a later copy is not a restart-resend (or is).
type reasonKind uint8

const (
	reasonAborted     reasonKind = iota // txn-retry: the earlier copy was aborted
	reasonRestart                       // restart-resend
	reasonSameSession                   // the rest are repeats
	reasonNoPID
	reasonRefNoPID
	reasonNoSession
	reasonNoTimestamps
	reasonConcurrent
	reasonBeyondWindow
	reasonRetry      // retry: PID -1, the same timestamp, later in the same partition
	reasonDedup      // dedup-failure: the same PID, epoch and sequence in one partition
	reasonNoPIDTwice // PID -1 on both sides, not a retry
)

// verdict is a later copy's class, the gap it was judged on and why;
// sessionGap is the gap between the sessions where they were compared.
type verdict struct {
	class      string
	gap        *int64
	reason     reasonKind
	sessionGap int64
}

func copyGap(m, ref *rec) *int64 {
	if m.ts < 0 || ref.ts < 0 {
		return nil
	}
	v := m.ts - ref.ts
	return &v
}

func (d *Detector) judge(m, ref *rec) verdict {
	switch d.cause(ref, m) {
	case ClassDedupFailure:
		return verdict{class: ClassDedupFailure, gap: copyGap(m, ref), reason: reasonDedup}
	case ClassRetry:
		return verdict{class: ClassRetry, gap: copyGap(m, ref), reason: reasonRetry}
	}
	if ref.txn() == analysis.TxnAborted {
		return verdict{class: ClassTxnRetry, gap: copyGap(m, ref), reason: reasonAborted}
	}
	v := d.timing(m, ref)
	if v.reason == reasonRestart {
		v.class = ClassRestartResend
		g := v.sessionGap
		v.gap = &g
		return v
	}
	v.class, v.gap = ClassRepeat, copyGap(m, ref)
	return v
}

// judgeAll is judge with the consumer-side causes: a restart-resend or a
// repeat of concurrent producers that a consumer group's records explain
// is a reprocess or a rebalance.
func (d *Detector) judgeAll(m, ref *rec) verdict {
	v := d.judge(m, ref)
	if cm := d.consumerCause(m, ref, &v); cm != nil {
		v.class = cm.class
		if cm.class == ClassReprocess {
			g := v.sessionGap // judged on the sessions, as a restart-resend
			v.gap = &g
		}
	}
	return v
}

// producerClass is the class the producer side alone gives a copy of
// class judged for reason: a reprocess or a rebalance is a restart-resend
// when the sessions show a restart, else a repeat (a restart beyond the
// window, concurrent writers).
func producerClass(class string, reason reasonKind) string {
	switch {
	case class != ClassReprocess && class != ClassRebalance:
		return class
	case reason == reasonRestart:
		return ClassRestartResend
	}
	return ClassRepeat
}

// timing judges whether the sessions of m and ref show a restart: the
// later writer's session in its partition began after the earlier
// writer's last write in the earlier copy's partition, within the
// window. A PID -1 writer on either side has no session to date a
// restart by.
func (d *Detector) timing(m, ref *rec) verdict {
	var v verdict
	laterKey := spanKey{m.part, m.pid, int32(m.epoch)}
	earlierKey := spanKey{ref.part, ref.pid, anyEpoch}
	sameSession := false
	if m.pid == ref.pid {
		earlierKey.epoch = int32(ref.epoch)
		sameSession = m.pid < 0 || m.epoch == ref.epoch
	}
	later, earlier := d.spans[laterKey], d.spans[earlierKey]
	switch {
	case sameSession && m.pid < 0:
		v.reason = reasonNoPIDTwice
	case sameSession:
		v.reason = reasonSameSession
	case m.pid < 0:
		v.reason = reasonNoPID
	case ref.pid < 0:
		v.reason = reasonRefNoPID
	case later == nil || earlier == nil:
		v.reason = reasonNoSession
	case later.firstTs < 0 || earlier.lastTs < 0:
		v.reason = reasonNoTimestamps
	default:
		g := later.firstTs - earlier.lastTs
		v.sessionGap = g
		after := g >= 0
		if m.part == ref.part {
			after = later.firstOff > earlier.lastOff
		}
		switch {
		case !after:
			v.reason = reasonConcurrent
		case g > d.opts.RestartWindow.Milliseconds():
			v.reason = reasonBeyondWindow
		default:
			v.reason = reasonRestart
		}
	}
	return v
}

// sessionAge is how long after its session's first write in its
// partition m was written; nil when unknown.
func (d *Detector) sessionAge(m *rec) *int64 {
	if m.pid < 0 || m.ts < 0 {
		return nil
	}
	s := d.spans[spanKey{m.part, m.pid, int32(m.epoch)}]
	if s == nil || s.firstTs < 0 {
		return nil
	}
	v := m.ts - s.firstTs
	return &v
}

// ownTiming says when m was written relative to ref and to its session.
func (d *Detector) ownTiming(m, ref *rec) string {
	var s string
	if g := copyGap(m, ref); g != nil {
		if *g < 0 {
			s = fmt.Sprintf("written %s before the earlier copy by timestamp", fmtGap(-*g))
		} else {
			s = fmt.Sprintf("written %s after the earlier copy", fmtGap(*g))
		}
	}
	if a := d.sessionAge(m); a != nil {
		if s == "" {
			s = "written"
		} else {
			s += ","
		}
		s += fmt.Sprintf(" %s into %s's session in %s", fmtGap(*a), pidName(m), d.pname(m))
	}
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// reasonText says why v is not a restart.
func (d *Detector) reasonText(m, ref *rec, v *verdict) string {
	switch v.reason {
	case reasonSameSession:
		return "the same producer session wrote it twice" + d.notDedup(m, ref)
	case reasonNoPIDTwice:
		return "PID -1 (no idempotence) wrote it twice, and not as a retry: " + d.notRetry(m, ref)
	case reasonNoPID:
		return "PID -1 (no idempotence) has no producer session to date a restart by"
	case reasonRefNoPID:
		return "the earlier copy's PID -1 (no idempotence) has no producer session to date a restart by"
	case reasonNoSession:
		return "no session information"
	case reasonNoTimestamps:
		return "no timestamps to compare the sessions"
	case reasonConcurrent:
		return fmt.Sprintf("%s was still writing to %s when %s's session began (concurrent producers)", pidName(ref), d.pname(ref), pidName(m))
	case reasonBeyondWindow:
		return fmt.Sprintf("%s's session began %s after %s's last write, beyond the %s restart window",
			pidName(m), fmtGap(v.sessionGap), pidName(ref), d.opts.RestartWindow)
	case reasonRestart:
		return fmt.Sprintf("%s's session began %s after %s's last write", pidName(m), fmtGap(v.sessionGap), pidName(ref))
	}
	return ""
}

// explain is the explanation of a later copy m of ref judged v, graded
// evidence for the reasons given.
func (d *Detector) explain(m, ref *rec, v *verdict, evidence, reasons string, cm *consumerMatch) string {
	var tail string
	if m.damaged() {
		tail += "; this copy is in a damaged batch (content unverified)"
	}
	if ref.damaged() {
		tail += "; the earlier copy is in a damaged batch (content unverified)"
	}
	switch m.txn() {
	case analysis.TxnAborted:
		tail += "; this copy was aborted (invisible to read_committed consumers)"
	case analysis.TxnOpen:
		tail += "; this copy's transaction has no marker in the input"
	}
	switch evidence {
	case EvidenceStrong:
		tail += "; strong evidence: " + reasons
	case EvidenceWeak:
		tail += fmt.Sprintf("; possible %s only, not strong: %s", v.class, reasons)
	}
	own := d.ownTiming(m, ref)
	if v.reason == reasonAborted {
		return fmt.Sprintf("%s wrote %s again%s; the earlier copy by %s at %s was in an aborted transaction, invisible to read_committed consumers%s",
			who(m), d.name(m), own, who(ref), d.name(ref), tail)
	}
	head := fmt.Sprintf("%s wrote %s again%s, first written by %s at %s", who(m), d.name(m), own, who(ref), d.name(ref))
	if v.reason == reasonRetry || v.reason == reasonDedup {
		return fmt.Sprintf("%s; %s%s", head, d.causeText(m, ref, v.class), tail)
	}
	if cm != nil {
		return fmt.Sprintf("%s; %s%s", head, d.consumerCauseText(m, ref, v, cm), tail)
	}
	if v.reason == reasonRestart {
		where := "there"
		if m.part != ref.part {
			where = "in " + d.pname(ref)
		}
		return fmt.Sprintf("%s; %s's session in %s began %s after %s's last write %s%s",
			head, pidName(m), d.pname(m), fmtGap(v.sessionGap), pidName(ref), where, tail)
	}
	return fmt.Sprintf("%s; not a restart: %s%s%s", head, d.reasonText(m, ref, v), d.notConsumer(m, ref, v), tail)
}

// fmtGap formats milliseconds for people: 0.4 s, 2.1 s, 12m05s, 3h00m,
// 2.5 days.
func fmtGap(ms int64) string {
	neg := ""
	if ms < 0 {
		neg, ms = "-", -ms
	}
	switch {
	case ms < 60_000:
		return fmt.Sprintf("%s%.1f s", neg, float64(ms)/1000)
	case ms < 3_600_000:
		return fmt.Sprintf("%s%dm%02ds", neg, ms/60_000, ms/1000%60)
	case ms < 48*3_600_000:
		return fmt.Sprintf("%s%dh%02dm", neg, ms/3_600_000, ms/60_000%60)
	}
	return fmt.Sprintf("%s%.1f days", neg, float64(ms)/86_400_000)
}

// FormatGap is fmtGap for callers printing runs.
func FormatGap(ms int64) string { return fmtGap(ms) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func joinInts(v []int64) string {
	var b bytes.Buffer
	for i, x := range v {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", x)
	}
	return b.String()
}
