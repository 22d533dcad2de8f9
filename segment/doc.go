// Package segment reads Kafka log segments (NNN.log) as a broker wrote them:
// magic 2 record batches and magic 0/1 message sets, with every codec
// (gzip, snappy in snappy-java framing or raw, lz4 including the Kafka 0.8
// frame checksum, zstd), and the index files beside them.
//
// A segment is a sequence of entries, each prefixed by its offset and length:
//
//	 0         8       12            16    17     21     23
//	+---------+-------+-------------+-----+------+------+-------------------+
//	| offset  | len   | leader epoch|magic| crc  | attrs| lastOffsetDelta...|  magic 2:
//	| int64   | int32 | int32       | 2   |crc32c| int16| 61-byte header,   |  CRC-32C over
//	+---------+-------+-------------+-----+------+------+ then the records  |  bytes 21..end
//	                                                     (compressed as one |
//	                                                      stream if a codec)|
//	+---------+-------+-------+-----+------+-----------+------+--------+
//	| offset  | size  | crc   |magic| attrs| timestamp | key  | value  |  magic 0/1:
//	| int64   | int32 | crc32 | 0/1 | int8 | (v1 only) |int32+|int32+  |  CRC-32 over
//	+---------+-------+-------+-----+------+-----------+------+--------+  bytes 16..end
//
// The magic byte sits at byte 16 in both layouts, which is how a reader
// tells them apart. A compressed magic 0/1 entry is a wrapper whose value
// is itself a message set.
//
// Reading:
//
//	r := segment.NewReader(f, segment.Options{Path: name})
//	defer r.Close()
//	for r.Next() {
//		if f := r.Finding(); f != nil { // damaged bytes, with file and position
//			log.Print(f)
//			continue
//		}
//		b := r.Batch()
//		it := r.Records()
//		for it.Next() {
//			rec := it.Record() // Key, Value, Headers are views: copy to keep
//			_ = rec
//		}
//		if err := it.Err(); err != nil { /* damage inside the batch */ }
//	}
//	if err := r.Err(); err != nil { /* I/O error */ }
//
// Damage is normal input. A bad CRC, an impossible length, an unknown magic,
// a torn tail, a zero-filled tail or garbage between batches is reported as
// a *CorruptionError (errors.Is with ErrCRC, ErrBadLength, ...) naming the
// file and byte position, and reading resumes at the next batch whose header
// and checksum hold. Decompression failures, decompression bombs and record
// counts that disagree with the records are reported by the records
// iterator. Nothing is allocated from an unchecked length: buffers grow with
// the bytes that really arrive, batches over Options.StreamThreshold are
// decoded as a stream (memory follows the largest record), and decompressed
// output is capped by Options.MaxDecompressedBytes.
//
// Batches and records are views into reused buffers, valid until the next
// call to Next; Batch.Clone copies a batch. A Decoder (one per goroutine)
// decodes records of cloned batches in parallel.
//
// The layouts, byte by byte, are in docs/formats/log-segment.md (batches and
// message sets), docs/formats/compression.md (codec framings) and
// docs/formats/indexes.md.
package segment
