// Package topics decodes the records of Kafka's internal topics:
// __transaction_state, __consumer_offsets, the KRaft metadata log and its
// .checkpoint snapshots, and control records; it tells those topics by
// name (TopicOf). It only reads: what the records mean for the cluster is
// the pass of package cluster, and the commits and groups that of package
// consumers.
package topics
