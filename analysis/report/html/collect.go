package html

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
)

// Limits on what a Collector keeps, so that the page (and the memory
// behind it) stays bounded whatever the input; what is left out is
// counted and said on the page.
const (
	maxAbortSpans    = 20000 // aborted transaction spans, over all sessions
	maxAbortMarkers  = 20000 // ABORT control batches
	maxDamagedRanges = 20000 // damaged batches
)

// Collector gathers, from the streamed rows of a scan, what the report
// needs beyond the returned tables: aborted transactions per producer
// session, the byte ranges of damaged batches, and the later occurrences
// of duplicate groups made into runs (dups.RunBuilder: on disk under
// tmpDir beyond its budget, with their explanations in a file beside).
//
//	c := html.NewCollector(tmp)
//	defer c.Close()
//	scan.Output{Batches: ... c.Batches(rows) ..., Records: ... c.Records(rows) ...}
//	det.Finish(ctx, func(g []analysis.DuplicateRow) error { return c.Duplicates(g) })
//	c.Finish(ctx)
//	html.Build(run) // run.Collected = c
//
// Not safe for concurrent use; the scan calls its outputs from one
// goroutine. A nil *Collector ignores everything.
type Collector struct {
	spans   map[SessionKey][]Span
	inAbort map[SessionKey]bool // the session's last record was aborted
	markers map[SessionKey][]Marker
	damaged map[segKey][]byteRange

	tmpDir string
	runs   *dups.RunBuilder
	expl   *os.File // explanations of later copies, one after another
	explW  *bufio.Writer
	explAt int64
	// The current group's last member and the last one by another
	// writer: the detector compares a later copy with one of the two
	// (dups.groupRows), so they date the copy it repeats.
	group        int64
	lastA, lastB member
	hasA, hasB   bool
	dupTopics    map[string]map[string]int64
	negParts     map[recKey]bool // partitions with later copies by PID -1 (offset 0)
	topRuns      []RunDetail
	runsTotal    int

	nSpans, nMarkers, nDamaged int
	// Omitted counts what was left out past the limits.
	omittedSpans, omittedMarkers, omittedDamaged int
}

// SessionKey names a producer session the way producer.Tracker does:
// partition dir within an input, producer id and epoch.
type SessionKey struct {
	Input int32
	Dir   string
	PID   int64
	Epoch int32
}

// Span is a stretch of a session's records inside aborted transactions.
type Span struct {
	FirstOffset    int64  `json:"first_offset"`
	LastOffset     int64  `json:"last_offset"`
	FirstTimestamp *int64 `json:"first_timestamp"`
	LastTimestamp  *int64 `json:"last_timestamp"`
}

// Marker is an ABORT control batch of a session.
type Marker struct {
	Offset    int64  `json:"offset"`
	Timestamp *int64 `json:"timestamp"`
}

type segKey struct {
	input   int32
	segment string
}

type byteRange struct{ start, end int64 }

type recKey struct {
	input     int32
	topic     string
	partition int32
	offset    int64
}

// NewCollector returns an empty Collector keeping what outgrows memory
// under tmpDir ("" for the system's).
func NewCollector(tmpDir string) *Collector { return newCollector(tmpDir, dups.DefaultRunBudget) }

// newCollector is NewCollector with the memory its RunBuilder may hold
// (tests lower it to make the runs spill).
func newCollector(tmpDir string, runBudget int64) *Collector {
	return &Collector{spans: map[SessionKey][]Span{}, inAbort: map[SessionKey]bool{}, markers: map[SessionKey][]Marker{},
		damaged: map[segKey][]byteRange{}, tmpDir: tmpDir, runs: dups.NewRunBuilder(tmpDir, runBudget), group: -1,
		dupTopics: map[string]map[string]int64{}, negParts: map[recKey]bool{}}
}

// RunDetail is a run with the explanation of its first copy.
type RunDetail struct {
	dups.Run
	Explanation string
}

// Batches takes batch rows in file order.
func (c *Collector) Batches(rows []analysis.BatchRow) {
	if c == nil {
		return
	}
	for i := range rows {
		b := &rows[i]
		if b.Damaged() {
			if c.nDamaged < maxDamagedRanges {
				k := segKey{b.Input, b.Segment}
				c.damaged[k] = append(c.damaged[k], byteRange{b.Position, b.Position + max(b.SizeBytes, 1)})
				c.nDamaged++
			} else {
				c.omittedDamaged++
			}
		}
		if b.IsControl && b.ControlType == "ABORT" && b.ProducerID >= 0 {
			if c.nMarkers < maxAbortMarkers {
				k := SessionKey{b.Input, analysis.PartitionDir(b.Segment), b.ProducerID, b.ProducerEpoch}
				ts := b.FirstTimestamp
				if b.MaxTimestamp != nil {
					ts = b.MaxTimestamp
				}
				c.markers[k] = append(c.markers[k], Marker{Offset: b.BaseOffset, Timestamp: copyPtr(ts)})
				c.nMarkers++
			} else {
				c.omittedMarkers++
			}
		}
	}
}

// Records takes record rows in the scan's order (offset order per
// partition for each producer).
func (c *Collector) Records(rows []analysis.PayloadRecordRow) {
	if c == nil {
		return
	}
	for i := range rows {
		r := &rows[i]
		if r.IsControl || r.ProducerID < 0 {
			continue
		}
		k := SessionKey{r.Input, analysis.PartitionDir(r.Segment), r.ProducerID, r.ProducerEpoch}
		if r.TxnState != "aborted" {
			if c.inAbort[k] {
				c.inAbort[k] = false
			}
			continue
		}
		spans := c.spans[k]
		if c.inAbort[k] && len(spans) > 0 {
			s := &spans[len(spans)-1]
			s.LastOffset = r.Offset
			if r.Timestamp != nil {
				s.LastTimestamp = copyPtr(r.Timestamp)
				if s.FirstTimestamp == nil {
					s.FirstTimestamp = copyPtr(r.Timestamp)
				}
			}
			continue
		}
		if c.nSpans >= maxAbortSpans {
			c.omittedSpans++
			continue
		}
		c.spans[k] = append(spans, Span{FirstOffset: r.Offset, LastOffset: r.Offset,
			FirstTimestamp: copyPtr(r.Timestamp), LastTimestamp: copyPtr(r.Timestamp)})
		c.inAbort[k] = true
		c.nSpans++
	}
}

// Duplicates takes one duplicate group as dups.Detector.Finish emits it
// (the slice may be reused afterwards).
func (c *Collector) Duplicates(group []analysis.DuplicateRow) error {
	if c == nil {
		return nil
	}
	for i := range group {
		r := &group[i]
		if r.GroupID != c.group {
			c.group, c.hasA, c.hasB = r.GroupID, false, false
		}
		// Members come in time order, a group's parts one after another.
		ref := &c.lastA
		if c.hasA && c.lastA.pid == r.ProducerID && c.hasB {
			ref = &c.lastB
		}
		var refTs *int64
		if r.Class != "" && c.hasA && ref.hasTs && r.RefTopic != nil && r.RefPartition != nil && r.RefOffset != nil &&
			ref.topic == *r.RefTopic && ref.partition == *r.RefPartition && ref.offset == *r.RefOffset {
			ts := ref.ts
			refTs = &ts
		}
		if c.hasA && c.lastA.pid != r.ProducerID {
			c.lastB, c.hasB = c.lastA, true
		}
		c.lastA, c.hasA = member{topic: r.Topic, partition: r.Partition, offset: r.Offset, pid: r.ProducerID}, true
		if r.Timestamp != nil {
			c.lastA.ts, c.lastA.hasTs = *r.Timestamp, true
		}
		if r.Class == "" || r.RefTopic == nil || r.RefPartition == nil || r.RefOffset == nil || r.RefProducerID == nil {
			continue
		}
		byClass := c.dupTopics[r.Topic]
		if byClass == nil {
			byClass = map[string]int64{}
			c.dupTopics[r.Topic] = byClass
		}
		byClass[r.Class]++
		if r.Evidence != "" {
			byClass[gradeKey+r.Evidence]++
		}
		if r.ProducerID < 0 {
			c.negParts[recKey{r.Input, r.Topic, r.Partition, 0}] = true
		}
		note, err := c.explain(r.Explanation)
		if err != nil {
			return err
		}
		if err := c.runs.AddWith(r, refTs, note); err != nil {
			return err
		}
	}
	return nil
}

// member is what the collector keeps of a group's member.
type member struct {
	topic     string
	partition int32
	offset    int64
	pid       int64
	ts        int64
	hasTs     bool
}

// explain writes a later copy's explanation to the file beside the runs
// and returns where it is: offset << 24 | length.
func (c *Collector) explain(s string) (uint64, error) {
	if len(s) >= 1<<24 {
		s = s[:1<<24-1]
	}
	if c.expl == nil {
		f, err := os.CreateTemp(c.tmpDir, "ksleuth-explanations-")
		if err != nil {
			return 0, fmt.Errorf("report: %w", err)
		}
		c.expl, c.explW = f, bufio.NewWriterSize(f, 64<<10)
	}
	if c.explAt >= 1<<40 { // past what a note can point to: no more explanations
		return 0, nil
	}
	note := uint64(c.explAt)<<24 | uint64(len(s))
	n, err := c.explW.WriteString(s)
	c.explAt += int64(n)
	if err != nil {
		return 0, fmt.Errorf("report: %w", err)
	}
	return note, nil
}

// Finish forms the duplicate runs and keeps the maxRuns with the most
// records, with their explanations, for Build.
func (c *Collector) Finish(ctx context.Context) error {
	if c == nil {
		return nil
	}
	total, err := c.runs.Finish(ctx)
	if err != nil {
		return err
	}
	c.runsTotal = total
	if c.explW != nil {
		if err := c.explW.Flush(); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	return c.runs.Each(ctx, maxRuns, func(u *dups.Run) error {
		d := RunDetail{Run: *u}
		if n := int(u.Note & (1<<24 - 1)); n > 0 && c.expl != nil {
			b := make([]byte, n)
			if _, err := c.expl.ReadAt(b, int64(u.Note>>24)); err != nil {
				return fmt.Errorf("report: %w", err)
			}
			d.Explanation = string(b)
		}
		c.topRuns = append(c.topRuns, d)
		return nil
	})
}

// Close removes the collector's temporary files.
func (c *Collector) Close() error {
	if c == nil {
		return nil
	}
	err := c.runs.Close()
	if c.expl != nil {
		err = errors.Join(err, c.expl.Close(), os.Remove(c.expl.Name()))
		c.expl = nil
	}
	return err
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
