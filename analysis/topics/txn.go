package topics

import (
	"fmt"
	"strconv"
	"strings"
)

// TxnState is a TransactionStatus byte of a __transaction_state value
// (TransactionState.java).
type TxnState int8

const (
	TxnEmpty             TxnState = 0
	TxnOngoing           TxnState = 1
	TxnPrepareCommit     TxnState = 2
	TxnPrepareAbort      TxnState = 3
	TxnCompleteCommit    TxnState = 4
	TxnCompleteAbort     TxnState = 5
	TxnDead              TxnState = 6
	TxnPrepareEpochFence TxnState = 7
)

var txnStateNames = [...]string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"}

func (s TxnState) String() string {
	if s >= 0 && int(s) < len(txnStateNames) {
		return txnStateNames[s]
	}
	return "Unknown(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText writes the state by name.
func (s TxnState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// TxnKey is a __transaction_state record key: int16 version (only 0
// exists) + TransactionalId string.
type TxnKey struct {
	Version         int16  `json:"version"`
	TransactionalID string `json:"transactionalId"`
}

// TxnPartitions is one topic of a transaction's partition set.
type TxnPartitions struct {
	Topic        string  `json:"topic"`
	PartitionIDs []int32 `json:"partitionIds"`
}

// TxnValue is a __transaction_state record value (TransactionLogValue):
// version 0 is classic, version 1 flexible with tagged fields.
type TxnValue struct {
	Version    int16 `json:"version"`
	ProducerID int64 `json:"producerId"`
	// PreviousProducerID (v1 tag 0, default -1): the PID of the last
	// committed transaction before an epoch-exhaustion rotation.
	PreviousProducerID int64 `json:"previousProducerId"`
	// NextProducerID (v1 tag 1, default -1): the PID the coordinator
	// handed out next for this transactional id.
	NextProducerID int64    `json:"nextProducerId"`
	ProducerEpoch  int16    `json:"producerEpoch"`
	TimeoutMs      int32    `json:"transactionTimeoutMs"`
	State          TxnState `json:"state"`
	// Partitions is null (nil) for an Empty transaction.
	Partitions   []TxnPartitions `json:"partitions"`
	LastUpdateMs int64           `json:"lastUpdateTimestampMs"`
	StartMs      int64           `json:"startTimestampMs"`
	// ClientTransactionVersion (v1 tag 2, default 0): 2 for KIP-890
	// transactions (epoch bumped at every commit/abort).
	ClientTransactionVersion int16 `json:"clientTransactionVersion"`
	// NextProducerEpoch (v1 tag 3, default -1; Kafka 4.1, KIP-939): the
	// epoch that goes with NextProducerID.
	NextProducerEpoch int16 `json:"nextProducerEpoch"`
}

// DecodeTxnKey decodes a __transaction_state key.
func DecodeTxnKey(b []byte) (*TxnKey, error) { return decodeTxnKey(b, nil) }

func decodeTxnKey(b []byte, ed *editor) (*TxnKey, error) {
	if b == nil {
		return nil, fmt.Errorf("%w: null key", ErrMalformed)
	}
	c := &cursor{b: b, part: "key", ed: ed}
	k := &TxnKey{Version: c.int16("key version")}
	if c.err != nil {
		return nil, c.err
	}
	if k.Version != 0 {
		return k, &VersionError{Part: "TransactionLogKey", Version: k.Version, Max: 0}
	}
	k.TransactionalID = c.named(FieldTransactionalID, false, "TransactionalId")
	return k, c.done()
}

// DecodeTxnValue decodes a __transaction_state value. A nil value is a
// tombstone and returns nil, nil.
func DecodeTxnValue(b []byte) (*TxnValue, error) { return decodeTxnValue(b, nil) }

func decodeTxnValue(b []byte, ed *editor) (*TxnValue, error) {
	if b == nil {
		return nil, nil
	}
	c := &cursor{b: b, part: "value", ed: ed}
	v := &TxnValue{Version: c.int16("value version"), PreviousProducerID: -1, NextProducerID: -1, NextProducerEpoch: -1}
	if c.err != nil {
		return nil, c.err
	}
	if v.Version < 0 || v.Version > 1 {
		return v, &VersionError{Part: "TransactionLogValue", Version: v.Version, Max: 1}
	}
	flex := v.Version >= 1
	v.ProducerID = c.int64("ProducerId")
	v.ProducerEpoch = c.int16("ProducerEpoch")
	v.TimeoutMs = c.int32("TransactionTimeoutMs")
	v.State = TxnState(c.int8("TransactionStatus"))
	if n := c.arrayLen(flex, 2+4, "TransactionPartitions"); c.err == nil && n >= 0 {
		v.Partitions = make([]TxnPartitions, n)
		for i := range v.Partitions {
			p := &v.Partitions[i]
			p.Topic = c.named(FieldTopic, flex, "Topic")
			p.PartitionIDs = c.int32Array(flex, "PartitionIds")
			if flex {
				c.tags(nil)
			}
		}
	}
	v.LastUpdateMs = c.int64("TransactionLastUpdateTimestampMs")
	v.StartMs = c.int64("TransactionStartTimestampMs")
	if flex {
		c.tags(func(tag uint32, f *cursor) {
			switch tag {
			case 0:
				v.PreviousProducerID = f.int64("PreviousProducerId")
			case 1:
				v.NextProducerID = f.int64("NextProducerId")
			case 2:
				v.ClientTransactionVersion = f.int16("ClientTransactionVersion")
			case 3:
				v.NextProducerEpoch = f.int16("NextProducerEpoch")
			}
		})
	}
	return v, c.done()
}

// PartitionList renders the partitions as kafka-dump-log does: t-0,t-1.
func (v *TxnValue) PartitionList() string {
	var sb strings.Builder
	for _, p := range v.Partitions {
		for _, id := range p.PartitionIDs {
			if sb.Len() > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(p.Topic)
			sb.WriteByte('-')
			sb.WriteString(strconv.Itoa(int(id)))
		}
	}
	return sb.String()
}
