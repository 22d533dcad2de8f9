// Package cluster is the pass over the internal topics' records that
// tells what happened in the cluster: who owned each producer id (the
// transactional id from __transaction_state, the broker whose block of
// __cluster_metadata holds it), the cluster events of the KRaft metadata
// log (leaders, ISRs, brokers, topics, configs) and the topic configs
// replayed from it, so that the loss ledger knows which topics are
// compacted. The records are decoded by package topics, which only reads.
//
// Pure computation: no files, no printing.
package cluster
