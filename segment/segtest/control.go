package segtest

import (
	"encoding/binary"
)

// Control record types (ControlRecordType.java).
const (
	ControlAbort          int16 = 0
	ControlCommit         int16 = 1
	ControlLeaderChange   int16 = 2
	ControlSnapshotHeader int16 = 3
	ControlSnapshotFooter int16 = 4
	ControlKRaftVersion   int16 = 5
	ControlKRaftVoters    int16 = 6
)

// ControlRecordKey is the 4-byte key of every control record: int16
// version 0, int16 type.
func ControlRecordKey(typ int16) []byte {
	return be.AppendUint16(be.AppendUint16(nil, 0), uint16(typ))
}

// EndTxnMarkerValue is the 6-byte COMMIT/ABORT value: int16 version 0,
// int32 coordinator epoch.
func EndTxnMarkerValue(coordinatorEpoch int32) []byte {
	return be.AppendUint32(be.AppendUint16(nil, 0), uint32(coordinatorEpoch))
}

// MarkerBatch is a transaction marker as the coordinator writes it:
// transactional + control (0x30), the transaction's producer id and epoch,
// baseSequence -1, one record at delta 0 with timestamp ts.
func MarkerBatch(baseOffset, pid int64, epoch int16, commit bool, coordinatorEpoch int32, ts int64, leaderEpoch int32) Batch {
	typ := ControlAbort
	if commit {
		typ = ControlCommit
	}
	return Batch{
		Magic:                2,
		BaseOffset:           baseOffset,
		PartitionLeaderEpoch: leaderEpoch,
		Transactional:        true,
		Control:              true,
		FirstTimestamp:       ts,
		Producer:             &Producer{ID: pid, Epoch: epoch, BaseSequence: -1},
		Records:              []Record{{Key: ControlRecordKey(typ), Value: EndTxnMarkerValue(coordinatorEpoch)}},
	}
}

// Marker encodes MarkerBatch.
func Marker(baseOffset, pid int64, epoch int16, commit bool, coordinatorEpoch int32, ts int64, leaderEpoch int32) []byte {
	return MarkerBatch(baseOffset, pid, epoch, commit, coordinatorEpoch, ts, leaderEpoch).Encode()
}

// KRaft control values are written by MessageUtil.toByteBuffer at schema
// version 0, which is "flexible": no version prefix, compact arrays as
// uvarint(len+1), and an empty tagged-field section (uvarint 0) closing
// every struct.

// LeaderChangeValue is a LeaderChangeMessage v0: Version int16, LeaderId
// int32, Voters and GrantingVoters as compact arrays of {VoterId int32}.
func LeaderChangeValue(leaderID int32, voters, granting []int32) []byte {
	b := be.AppendUint16(nil, 0)
	b = be.AppendUint32(b, uint32(leaderID))
	for _, set := range [][]int32{voters, granting} {
		b = binary.AppendUvarint(b, uint64(len(set))+1)
		for _, id := range set {
			b = be.AppendUint32(b, uint32(id))
			b = append(b, 0) // tagged fields of the voter struct
		}
	}
	return append(b, 0)
}

// SnapshotHeaderValue is a SnapshotHeaderRecord v0: Version int16,
// LastContainedLogTimestamp int64.
func SnapshotHeaderValue(lastContainedLogTimestamp int64) []byte {
	b := be.AppendUint16(nil, 0)
	b = be.AppendUint64(b, uint64(lastContainedLogTimestamp))
	return append(b, 0)
}

// SnapshotFooterValue is a SnapshotFooterRecord v0: Version int16.
func SnapshotFooterValue() []byte { return append(be.AppendUint16(nil, 0), 0) }

// KRaftVersionValue is a KRaftVersionRecord v0: Version int16,
// KRaftVersion int16.
func KRaftVersionValue(kraftVersion int16) []byte {
	return append(be.AppendUint16(be.AppendUint16(nil, 0), uint16(kraftVersion)), 0)
}

// ControlBatch is a non-transactional control batch (0x20) of one record
// of the given type and value, as KRaft writes LEADER_CHANGE and snapshot
// header/footer records.
func ControlBatch(baseOffset int64, typ int16, value []byte, ts int64, leaderEpoch int32) Batch {
	return Batch{
		Magic:                2,
		BaseOffset:           baseOffset,
		PartitionLeaderEpoch: leaderEpoch,
		Control:              true,
		FirstTimestamp:       ts,
		Records:              []Record{{Key: ControlRecordKey(typ), Value: value}},
	}
}
