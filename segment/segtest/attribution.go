package segtest

import (
	"os"
	"path/filepath"
)

// Fields encodes values big-endian, as the records of Kafka's internal
// topics hold them: int8, int16, int32 and int64 as themselves, a string
// as its INT16 length and bytes, a []byte as it is.
func Fields(vs ...any) []byte {
	var b []byte
	for _, v := range vs {
		switch v := v.(type) {
		case int8:
			b = append(b, byte(v))
		case int16:
			b = be.AppendUint16(b, uint16(v))
		case int32:
			b = be.AppendUint32(b, uint32(v))
		case int64:
			b = be.AppendUint64(b, uint64(v))
		case string:
			b = append(be.AppendUint16(b, uint16(len(v))), v...)
		case []byte:
			b = append(b, v...)
		}
	}
	return b
}

// TxnStateValue encodes a __transaction_state value of a producer id in
// a state (0 Empty, 1 Ongoing, 4 CompleteCommit, ...): v0 when prev < 0,
// else v1 with the PreviousProducerId tag. A state other than Empty names
// partition 0 of topic orders.
func TxnStateValue(pid int64, epoch int16, state int8, prev int64) []byte {
	const ts = int64(1700000000000)
	if prev < 0 {
		parts := []byte{0xff, 0xff, 0xff, 0xff} // null
		if state != 0 {
			parts = Fields(int32(1), "orders", int32(1), int32(0))
		}
		return Fields(int16(0), pid, epoch, int32(60000), state, parts, ts, ts)
	}
	return Fields(int16(1), pid, epoch, int32(60000), state, []byte{2, 7}, []byte("orders"), []byte{2}, int32(0), []byte{0},
		ts, ts, []byte{1, 0, 8}, prev)
}

// WriteAttributionLogDir writes into dir a log dir holding a data topic,
// its __transaction_state and the KRaft metadata log, whose producer ids
// can each be attributed:
//   - PID 4000 epochs 0 and 1: transactional id payments-app (a restart
//     bumped the epoch), block [4000, 4999] of broker 2;
//   - PID 5000 epoch 0: payments-app again after epoch exhaustion
//     (PreviousProducerId 4000), block [5000, 5999] of broker 3; it
//     resends "b" of PID 4000 (offset 4 repeats 2);
//   - PIDs 6001 and 6002: idempotent only, no transactional id, broker 1;
//     6002 resends "d" of 6001 (offset 7 repeats 6).
func WriteAttributionLogDir(dir string) error {
	write := func(part string, batches ...Batch) error {
		p := filepath.Join(dir, part)
		if err := os.MkdirAll(p, 0o755); err != nil {
			return err
		}
		var b []byte
		for _, x := range batches {
			b = append(b, x.Encode()...)
		}
		return os.WriteFile(filepath.Join(p, SegmentFileName(0)), b, 0o644)
	}
	ts := int64(1700000000000)
	data := func(off, pid int64, epoch int16, txn bool, val string) Batch {
		return Batch{Magic: 2, BaseOffset: off, FirstTimestamp: ts + off, Transactional: txn, AutoDeltas: true,
			Producer: &Producer{ID: pid, Epoch: epoch, BaseSequence: 0}, Records: []Record{{Value: []byte(val)}}}
	}
	err := write("orders-0",
		data(0, 4000, 0, true, "a"), MarkerBatch(1, 4000, 0, true, 0, ts+1, 0),
		data(2, 4000, 1, true, "b"), MarkerBatch(3, 4000, 1, true, 0, ts+3, 0),
		data(4, 5000, 0, true, "b"), MarkerBatch(5, 5000, 0, true, 0, ts+5, 0),
		data(6, 6001, 0, false, "d"), data(7, 6002, 0, false, "d"))
	if err != nil {
		return err
	}
	key := Fields(int16(0), "payments-app")
	state := func(off int64, v []byte) Batch {
		return Batch{Magic: 2, BaseOffset: off, FirstTimestamp: ts + off, Records: []Record{{Key: key, Value: v}}}
	}
	err = write("__transaction_state-3",
		state(0, TxnStateValue(4000, 0, 0, -1)), state(1, TxnStateValue(4000, 0, 1, -1)), state(2, TxnStateValue(4000, 0, 4, -1)),
		state(3, TxnStateValue(4000, 1, 1, -1)), state(4, TxnStateValue(4000, 1, 4, -1)),
		state(5, TxnStateValue(5000, 0, 4, 4000)))
	if err != nil {
		return err
	}
	// ProducerIdsRecord (type 15, version 0): broker, its epoch, and the
	// next producer id after the block.
	pids := func(off int64, broker int32, next int64) Batch {
		return Batch{Magic: 2, BaseOffset: off, FirstTimestamp: ts + off,
			Records: []Record{{Value: append(append([]byte{1, 15, 0}, Fields(broker, int64(3), next)...), 0)}}}
	}
	return write("__cluster_metadata-0", pids(0, 2, 5000), pids(1, 3, 6000), pids(2, 1, 7000))
}
