// Package segtest builds Kafka log segments byte for byte, for tests.
//
// It is the write side that ksleuth itself never has: given a [Batch]
// description it produces exactly the bytes a broker would leave in a
// NNN.log file, with correct lengths, CRCs and codec framing, for every
// magic (0, 1, 2) and codec (none, gzip, snappy, lz4, zstd). Tests use it
// to build inputs for the segment reader, and [GenerateLogDir] uses it to
// write whole seeded log directories together with a ground-truth
// [Manifest].
//
// The encoder writes what it is told. Combinations Kafka never writes
// (zstd in a legacy wrapper, a magic of 3, a lastOffsetDelta below the
// records' deltas) are encoded as asked, so that readers can be tested
// against them; [Batch.Validate] reports them. [FixCRC] recomputes the
// checksum after a test has patched bytes on purpose.
//
// The package deliberately does not import package segment: segment's own
// tests import segtest, and an import back would be a cycle.
//
// Byte layouts are Kafka's on-disk formats: the v0/v1 message and v2
// record batch layouts, the codec framings, and the index, checkpoint and
// producer snapshot files a broker keeps beside its segments, as
// docs/formats/ describes them.
package segtest
