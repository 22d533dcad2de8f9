package dump

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/report/payloadenc"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

// dumpLog prints a log segment or a KRaft snapshot batch by batch.
func (d *Dumper) dumpLog(name, kind string) error {
	f, err := source.OpenNamed(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if !d.o.JSON {
		fmt.Fprintf(d.out, "Dumping %s\n", name)
		if off, ok := offsetFromName(filepath.Base(name)); ok && kind == "log" {
			fmt.Fprintf(d.out, "Log starting offset: %d\n", off)
		}
	}
	d.topic, d.topicName = topics.None, ""
	if pd, ok := source.ParsePartitionDir(filepath.Base(filepath.Dir(absPath(name)))); ok && kind == "log" {
		d.topicName = pd.Topic
	}
	if d.o.DecodeTopics {
		d.topic = internalTopic(name, kind)
	}
	var in io.Reader = f
	limit := int64(-1)
	size, end, holes := fileData(f)
	if d.o.MaxBytes > 0 && size > d.o.MaxBytes {
		limit = d.o.MaxBytes
		in = io.NewSectionReader(f, 0, limit)
	} else if end < size {
		// The file is read up to the end of its data; the hole after it
		// is one finding, as verify reports it.
		in = io.NewSectionReader(f, 0, end)
	}
	r := segment.NewReader(in, segment.Options{Path: name, Holes: holes})
	defer r.Close()
	cut, batches, damaged, tornStart := false, 0, false, false
	for r.Next() {
		if fd := r.Finding(); fd != nil {
			// A batch the MaxBytes cut goes through is not read, as
			// kafka-dump-log leaves it: the cut is not damage.
			if limit >= 0 && fd.Offset+fd.Length >= limit {
				cut = true
				break
			}
			damaged = damaged || finding.ReaderDamage(fd)
			tornStart = tornStart || finding.TornFromStart(finding.ReaderKind(fd), fd.Offset)
			d.finding(name, fd)
			continue
		}
		b := r.Batch()
		batches++
		if b.CRCValid && b.BaseOffset > d.o.Offsets.To {
			break // offsets only grow through a segment
		}
		if err := d.batchAndRecords(name, b, r.Records()); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil || cut || limit >= 0 {
		return err
	}
	if end < size {
		d.finding(name, segment.TailHole(name, end, size))
	}
	if batches == 0 && damaged && !tornStart && tornPlace(name) != finding.NotLive && kind == "log" {
		// verify's word for a live segment with no batch in it.
		d.row(name, finding.NotKafkaData(finding.Where{Partition: -1, File: name}, size), 0)
	}
	return nil
}

// batchAndRecords prints a batch the selection keeps, and its selected
// records. Records are walked even when not printed: a header count that
// disagrees with the records under a valid CRC shows only there.
func (d *Dumper) batchAndRecords(name string, b *segment.Batch, it *segment.RecordIter) error {
	keep := d.o.keepBatch(b)
	if keep {
		d.batch(name, b)
	}
	for it.Next() {
		if rec := it.Record(); keep && d.o.Records && d.o.Offsets.Contains(rec.Offset) && d.o.Window.Contains(rec.Timestamp) {
			d.record(name, b, rec)
		}
	}
	if err := it.Err(); err != nil {
		ce, ok := err.(*segment.CorruptionError)
		if !ok {
			return err
		}
		d.finding(name, ce)
	}
	return nil
}

// fileData returns the size of file f, where its data ends and the holes
// before that, for the segment reader: each is one finding, passed over
// without reading its zeros (a terabyte hole costs nothing).
func fileData(f *os.File) (size, end int64, holes []segment.Hole) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0, 0, nil
	}
	ranges := source.FileDataRanges(f, st.Size())
	end = source.DataEnd(ranges, st.Size())
	for _, h := range source.Holes(ranges, end) {
		holes = append(holes, segment.Hole{Start: h.Start, End: h.End})
	}
	return st.Size(), end, holes
}

// tornPlace is where file name stands for grading a torn batch in it, as
// verify judges it in the partition dir: a live segment is the active one
// unless a live segment of a higher base offset lies beside it.
func tornPlace(name string) finding.Place {
	n := snapshot.ParseName(filepath.Base(name))
	switch {
	case fileKind(filepath.Base(name)) == "kraft-snapshot":
		return finding.WrittenWhole
	case n.Kind != snapshot.KindLog || n.Suffix != "" || n.Leftover:
		return finding.NotLive
	}
	return finding.PlaceBeside(source.LaterSegment(name))
}

func optionalLong(v int64) string {
	if v < 0 {
		return "OptionalLong.empty"
	}
	return "OptionalLong[" + strconv.FormatInt(v, 10) + "]"
}

// batch prints a batch header: kafka-dump-log's line, or a JSON object
// with the batches table's column names (the few kafka-dump-log fields
// without a column keep their meaning under a snake_case name).
func (d *Dumper) batch(name string, b *segment.Batch) {
	ts := b.TimestampType().String()
	if d.o.JSON {
		nn := payloadenc.NonNegative
		m := map[string]any{
			"type": "batch", "file": name, "base_offset": b.BaseOffset, "last_offset": b.LastOffset(),
			"record_count": b.NumRecords, "base_sequence": b.BaseSequence, "last_sequence": b.LastSequence(),
			"producer_id": b.ProducerID, "producer_epoch": b.ProducerEpoch,
			"partition_leader_epoch": b.PartitionLeaderEpoch, "is_transactional": b.IsTransactional(),
			"is_control": b.IsControl(), "delete_horizon_ms": nil, "position": b.Position,
			"timestamp_type": ts, "max_timestamp": nn(b.MaxTimestamp),
			"first_timestamp": nn(b.FirstTimestamp), "size_bytes": b.Size(), "magic": b.Magic,
			"codec": b.Codec().String(), "crc": b.CRC, "crc_valid": b.CRCValid,
		}
		if b.HasDeleteHorizon() {
			m["delete_horizon_ms"] = b.DeleteHorizon()
		}
		payloadenc.WriteLine(d.out, m)
		return
	}
	w := d.out
	if b.Magic < 2 {
		fmt.Fprintf(w, "offset: %d position: %d %s: %d size: %d magic: %d compresscodec: %s crc: %d isvalid: %t\n",
			b.LastOffset(), b.Position, ts, b.MaxTimestamp, b.Size(), b.Magic, b.Codec(), b.CRC, b.CRCValid)
		return
	}
	fmt.Fprintf(w, "baseOffset: %d lastOffset: %d count: %d baseSequence: %d lastSequence: %d producerId: %d producerEpoch: %d "+
		"partitionLeaderEpoch: %d isTransactional: %t isControl: %t deleteHorizonMs: %s position: %d %s: %d size: %d magic: %d "+
		"compresscodec: %s crc: %d isvalid: %t\n",
		b.BaseOffset, b.LastOffset(), b.NumRecords, b.BaseSequence, b.LastSequence(), b.ProducerID, b.ProducerEpoch,
		b.PartitionLeaderEpoch, b.IsTransactional(), b.IsControl(), optionalLong(b.DeleteHorizon()), b.Position,
		ts, b.MaxTimestamp, b.Size(), b.Magic, b.Codec(), b.CRC, b.CRCValid)
}
