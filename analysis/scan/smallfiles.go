package scan

import (
	"fmt"
	"io"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/snapshot"
)

// readAll reads a small file whole, at most limit bytes; a longer file is
// reported and skipped (its hash is still computed by the caller's drain).
func readAll(fc *fileCtx, in io.Reader, limit int64) ([]byte, bool, error) {
	data, err := io.ReadAll(io.LimitReader(in, limit+1))
	if err != nil {
		// Where reading stopped is the finding's position: in a cut
		// archive, the byte of the entry where its data ends.
		return nil, false, &readStop{err: fmt.Errorf("%s: read at byte %d: %w", fc.e.Path, len(data), err), pos: int64(len(data))}
	}
	if int64(len(data)) > limit {
		fc.anomaly(finding.New(fc.where(), finding.KindFileTooLarge, -1, -1, "%s: larger than %d bytes, not parsed", fc.e.Path, limit))
		return nil, false, nil
	}
	return data, true, nil
}

func (w *worker) index(fc *fileCtx, in io.Reader) error {
	data, ok, err := readAll(fc, in, maxIndexBytes)
	if ok {
		// Parsed by the checker, which has the segment's batches.
		fc.done.data = data
	}
	return err
}

func (w *worker) producerSnapshot(fc *fileCtx, in io.Reader) error {
	data, ok, err := readAll(fc, in, snapshot.DefaultMaxSize)
	if !ok {
		return err
	}
	// Its findings are the checker's, which compares it with the log.
	fc.done.data = data
	f, _ := snapshot.ParseNamed(fc.e.Path, data)
	if f == nil {
		return nil
	}
	for _, en := range f.Entries {
		fc.done.snapshots = append(fc.done.snapshots, analysis.SnapshotRow{
			Input: fc.input, Topic: fc.topic, Partition: fc.partition, File: fc.e.Path,
			EndOffset: f.EndOffset, CRCValid: f.CRCValid(),
			ProducerID: en.ProducerID, ProducerEpoch: int32(en.Epoch),
			LastSequence: en.LastSequence, FirstSequence: en.FirstSequence(),
			LastOffset: en.LastOffset, FirstOffset: en.FirstOffset(),
			Timestamp: analysis.Millis(en.Timestamp), CoordinatorEpoch: en.CoordinatorEpoch,
			CurrentTxnFirstOffset: en.CurrentTxnFirstOffset,
		})
	}
	if f.EndOffset >= 0 {
		fc.done.row.LastOffset = ptr(f.EndOffset)
	}
	return nil
}

func (w *worker) stateFile(fc *fileCtx, in io.Reader) error {
	data, ok, err := readAll(fc, in, maxStateBytes)
	if !ok {
		return err
	}
	// Parsed by the checker; the scan only needs the broker id.
	fc.done.data = data
	if fc.e.Name.Kind == snapshot.KindMetaProperties && !fc.e.Name.Leftover {
		if m, _ := snapshot.ParseMetaProperties(fc.e.Path, data); m != nil {
			if id := m.ID(); id >= 0 {
				fc.done.brokerID = ptr(id)
			}
		}
	}
	return nil
}
