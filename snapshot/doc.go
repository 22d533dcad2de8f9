// Package snapshot parses the small per-partition and per-log-dir state
// files of a Kafka data directory: producer-state snapshots (NNN.snapshot),
// leader-epoch-checkpoint, the four offset checkpoint files,
// partition.metadata, meta.properties, .kafka_cleanshutdown and quorum-state.
// KindOf tells them (and the segment files) apart by name.
//
// All parsers work on a whole file in memory, since these files are small,
// and all are read-only. They never trust a length or count before checking
// it against the bytes present, and they return what they could decode
// together with the error, so that a damaged file can still be shown.
// docs/formats/producer-snapshot.md and docs/formats/checkpoints.md describe
// the formats byte by byte and line by line.
//
// Producer snapshot, version 1 (ProducerSnapshot.json in apache/kafka), big-endian:
//
//	+---------+---------+---------+------------------------------+
//	| version | crc     | count   | count × 46-byte entries      |
//	| int16=1 | uint32  | int32   |                              |
//	+---------+---------+---------+------------------------------+
//	0         2         6         10                        EOF
//	                    |<-- CRC-32C (Castagnoli) over [6, EOF) -->|
//
//	entry: producerId int64 | epoch int16 | lastSequence int32 |
//	       lastOffset int64 | offsetDelta int32 | timestamp int64 |
//	       coordinatorEpoch int32 | currentTxnFirstOffset int64
//
// Usage:
//
//	f, err := snapshot.ReadFile("00000000000000000042.snapshot")
//	if errors.Is(err, snapshot.ErrCRC) {
//		// f.Entries is a best-effort view of a file the broker would delete
//	}
//	for _, e := range f.Entries {
//		fmt.Println(e) // DumpLogSegments format
//	}
package snapshot
