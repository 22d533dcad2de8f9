package bundle

import (
	"io"

	"github.com/ksleuth/ksleuth/analysis/records"
	"github.com/ksleuth/ksleuth/segment"
)

// holdsWindow reports whether the segment read from r can hold a record
// whose timestamp lies in w. Batch headers decide most batches: a v2
// batch's largest timestamp below the window's start rules it out, and
// its first record's timestamp inside the window keeps it. The records of
// the other batches are decoded, since a record of a v2 batch may be
// older than the batch's first. What cannot be told is kept: damage, a
// batch whose records do not decode, records without a timestamp (magic
// 0) and a segment without batches, whose emptiness is evidence too.
func holdsWindow(r io.Reader, size int64, w records.Window) (bool, error) {
	if w.IsAlways() {
		return true, nil
	}
	rd := segment.NewReader(r, segment.Options{Size: size})
	defer rd.Close()
	batches := 0
	for rd.Next() {
		if rd.Finding() != nil {
			return true, nil
		}
		b := rd.Batch()
		batches++
		if b.Magic >= 2 && b.MaxTimestamp < w.Since && b.MaxTimestamp >= 0 {
			continue
		}
		if b.Magic >= 2 && !b.HasDeleteHorizon() && b.TimestampType() == segment.CreateTime && w.Contains(b.FirstTimestamp) {
			return true, nil
		}
		it := rd.Records()
		for it.Next() {
			if ts := it.Record().Timestamp; ts < 0 || w.Contains(ts) {
				return true, nil
			}
		}
		if it.Err() != nil {
			return true, nil
		}
	}
	return batches == 0, rd.Err()
}
