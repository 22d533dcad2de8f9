package pipeline

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/export"
)

// The columns of a records table the detector reads (tableRecord's),
// in the order the col* indexes name them.
var recordColumns = []export.ReadColumn{
	{Name: "input", Kind: export.KindInt32},
	{Name: "topic", Kind: export.KindBytes},
	{Name: "partition", Kind: export.KindInt32},
	{Name: "dir", Kind: export.KindBytes},
	{Name: "segment", Kind: export.KindBytes},
	{Name: "batch_position", Kind: export.KindInt64},
	{Name: "offset", Kind: export.KindInt64},
	{Name: "timestamp", Kind: export.KindInt64},
	{Name: "producer_id", Kind: export.KindInt64},
	{Name: "producer_epoch", Kind: export.KindInt32},
	{Name: "sequence", Kind: export.KindInt32},
	{Name: "fingerprint", Kind: export.KindBytes},
	{Name: "txn_state", Kind: export.KindBytes},
	{Name: "is_control", Kind: export.KindBool},
	{Name: "damaged", Kind: export.KindBool},
}

const (
	colInput = iota
	colTopic
	colPartition
	colDir
	colSegment
	colBatchPos
	colOffset
	colTimestamp
	colPID
	colEpoch
	colSeq
	colFP
	colTxn
	colControl
	colDamaged
)

// shardFeed adds one shard's records to the detector. Consecutive rows
// mostly share their partition dir, segment, topic and transaction state
// (a records part file holds a topic's partitions one after another), so
// each is compared with the previous row's before any map lookup,
// conversion to a string or regular expression match.
type shardFeed struct {
	det   *dups.Detector
	s     *Shard
	topic *regexp.Regexp
	ids   map[partKey]dups.PartID
	batch batchStart

	lastIn      int32
	lastDir     []byte
	lastID      dups.PartID
	haveID      bool
	lastTopic   []byte
	topicOK     bool
	haveTopic   bool
	lastSeg     []byte
	lastSegStr  string
	lastTxn     []byte
	lastTxnSt   analysis.TxnState
	haveTxnStat bool
}

type partKey struct {
	input int32
	dir   string
}

func newShardFeed(det *dups.Detector, s *Shard, topic *regexp.Regexp) *shardFeed {
	return &shardFeed{det: det, s: s, topic: topic, ids: map[partKey]dups.PartID{}}
}

// part adds the records of one part file, reading only the columns the
// detector needs (export.EachColumns); false when the file is not of the
// layout this version writes, for the caller to read it row by row.
func (f *shardFeed) part(ctx context.Context, path string) (bool, error) {
	err := export.EachColumns(ctx, path, recordColumns, func(b *export.ColumnBlock) error {
		for i := range b.Rows {
			if err := f.row(path, b, i); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, export.ErrColumnLayout) {
		return false, nil
	}
	return true, err
}

func (f *shardFeed) row(path string, b *export.ColumnBlock, i int) error {
	if b.Bool(colControl, i) {
		return nil
	}
	topic := b.Bytes(colTopic, i)
	if f.topic != nil {
		if !f.haveTopic || !bytes.Equal(topic, f.lastTopic) {
			f.lastTopic = append(f.lastTopic[:0], topic...)
			f.topicOK, f.haveTopic = f.topic.Match(topic), true
		}
		if !f.topicOK {
			return nil
		}
	}
	in := b.Int32(colInput, i)
	if in < 0 || int(in) >= len(f.s.sources) {
		return &TablesError{fmt.Errorf("%s: input %d, but the scan had %d input(s)", path, in, len(f.s.sources))}
	}
	dir := b.Bytes(colDir, i)
	if !f.haveID || in != f.lastIn || !bytes.Equal(dir, f.lastDir) {
		k := partKey{in, string(dir)}
		id, ok := f.ids[k]
		if !ok {
			id = f.det.Partition(f.s.offset+in, f.s.sources[in], string(topic), b.Int32(colPartition, i), k.dir)
			f.ids[k] = id
		}
		f.lastIn, f.lastDir, f.lastID, f.haveID = in, append(f.lastDir[:0], dir...), id, true
	}
	var fp [16]byte
	if h := b.Bytes(colFP, i); len(h) != 32 {
		return &TablesError{fmt.Errorf("%s: fingerprint %q is not 32 hex digits", path, h)}
	} else if _, err := hex.Decode(fp[:], h); err != nil {
		return &TablesError{fmt.Errorf("%s: fingerprint %q: %w", path, h, err)}
	}
	if seg := b.Bytes(colSegment, i); !bytes.Equal(seg, f.lastSeg) || f.lastSegStr == "" && len(seg) > 0 {
		f.lastSeg, f.lastSegStr = append(f.lastSeg[:0], seg...), string(seg)
	}
	if txn := b.Bytes(colTxn, i); !f.haveTxnStat || !bytes.Equal(txn, f.lastTxn) {
		f.lastTxn, f.lastTxnSt, f.haveTxnStat = append(f.lastTxn[:0], txn...), analysis.ParseTxnState(string(txn)), true
	}
	off := b.Int64(colOffset, i)
	rec := dups.Record{Part: f.lastID, Offset: off, Timestamp: -1, ProducerID: b.Int64(colPID, i), Epoch: int16(b.Int32(colEpoch, i)),
		Sequence: b.Int32(colSeq, i), Txn: f.lastTxnSt, Damaged: b.Bool(colDamaged, i), Fingerprint: fp, HasBatch: true}
	rec.BatchStart = f.batch.of(in, f.lastSegStr, b.Int64(colBatchPos, i), off)
	if !b.Null(colTimestamp, i) {
		rec.Timestamp = b.Int64(colTimestamp, i)
	}
	return f.det.Add(&rec)
}
