// Package producer owns what ksleuth knows of producers and their
// transactions, per partition dir: fed every batch once, in offset order
// (the checker's replay), one state per partition dir gives
//
//   - the producer sessions, one per (partition dir, producer id, epoch),
//     with offsets, times, sequences, transaction markers and the sequence
//     anomalies a healthy broker would not have let through
//     (producers.parquet);
//   - the transactions, from a producer's first transactional data batch
//     to the next COMMIT or ABORT marker of its producer id, whatever the
//     epoch (a fencing abort carries the bumped epoch), the last stable
//     offset of each partition, and the open transactions told hanging
//     or in progress (partition_txns.parquet);
//
// and State rebuilds a partition's producer state the way a broker does
// when it recovers a log (apache/kafka UnifiedLog.loadProducersFromRecords,
// ProducerAppendInfo, ProducerStateEntry), for the checker to compare with
// the producer snapshots.
//
//	t := producer.New()
//	for each batch row, in offset order within its partition dir { t.Batch(&row) }
//	sessions, anomalies := t.Sessions(snapshotRows)
//	txns := t.Transactions(ctx)
//
// Pure computation: no files, no printing. Memory is one small struct per
// session and per transaction.
package producer
