package report

import (
	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/producers"
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
// of duplicate groups with the timestamps of every member.
//
//	c := report.NewCollector()
//	scan.Output{Batches: ... c.Batches(rows) ..., Records: ... c.Records(rows) ...}
//	det.Finish(ctx, func(g []analysis.DuplicateRow) error { c.Duplicates(g); ... })
//
// Not safe for concurrent use; the scan calls its outputs from one
// goroutine. A nil *Collector ignores everything.
type Collector struct {
	spans   map[SessionKey][]Span
	inAbort map[SessionKey]bool // the session's last record was aborted
	markers map[SessionKey][]Marker
	damaged map[segKey][]byteRange
	later   []analysis.DuplicateRow
	times   map[recKey]int64

	nSpans, nMarkers, nDamaged int
	// Omitted counts what was left out past the limits.
	omittedSpans, omittedMarkers, omittedDamaged int
}

// SessionKey names a producer session the way producers.Tracker does:
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

// NewCollector returns an empty Collector.
func NewCollector() *Collector {
	return &Collector{spans: map[SessionKey][]Span{}, inAbort: map[SessionKey]bool{}, markers: map[SessionKey][]Marker{},
		damaged: map[segKey][]byteRange{}, times: map[recKey]int64{}}
}

// Batches takes batch rows in file order.
func (c *Collector) Batches(rows []analysis.BatchRow) {
	if c == nil {
		return
	}
	for i := range rows {
		b := &rows[i]
		if producers.Damaged(b) {
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
				k := SessionKey{b.Input, producers.DirOf(b.Segment), b.ProducerID, b.ProducerEpoch}
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
		k := SessionKey{r.Input, producers.DirOf(r.Segment), r.ProducerID, r.ProducerEpoch}
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
func (c *Collector) Duplicates(group []analysis.DuplicateRow) {
	if c == nil {
		return
	}
	for i := range group {
		r := group[i]
		if r.Timestamp != nil {
			c.times[recKey{r.Input, r.Topic, r.Partition, r.Offset}] = *r.Timestamp
		}
		if r.Class == "" {
			continue
		}
		r.Timestamp = copyPtr(r.Timestamp)
		r.RefTopic, r.RefPartition, r.RefOffset = copyPtr(r.RefTopic), copyPtr(r.RefPartition), copyPtr(r.RefOffset)
		r.RefProducerID, r.GapMillis = copyPtr(r.RefProducerID), copyPtr(r.GapMillis)
		c.later = append(c.later, r)
	}
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
