package topics

import (
	"strings"

	"github.com/ksleuth/ksleuth/segment"
)

// Topic is an internal topic whose records this package decodes.
type Topic uint8

const (
	None              Topic = iota
	TransactionState        // __transaction_state
	ConsumerOffsets         // __consumer_offsets
	ClusterMetadata         // __cluster_metadata (KRaft log and .checkpoint snapshots)
	RemoteLogMetadata       // __remote_log_metadata (tiered storage's segment metadata)
)

func (t Topic) String() string {
	switch t {
	case TransactionState:
		return "__transaction_state"
	case ConsumerOffsets:
		return "__consumer_offsets"
	case ClusterMetadata:
		return "__cluster_metadata"
	case RemoteLogMetadata:
		return "__remote_log_metadata"
	}
	return "none"
}

// TopicOf judges the internal topic from a partition directory name
// (__transaction_state-N, __consumer_offsets-N, __cluster_metadata-0,
// also with the -delete/-future/-stray suffixes of dirs in transit) or a
// topic name.
func TopicOf(name string) Topic {
	if i := strings.IndexByte(name, '.'); i >= 0 && strings.HasPrefix(name, "__") {
		// "__consumer_offsets-3.<uuid>-delete": drop the suffix.
		name = name[:i]
	}
	for _, t := range []Topic{TransactionState, ConsumerOffsets, ClusterMetadata, RemoteLogMetadata} {
		s := t.String()
		if name == s || strings.HasPrefix(name, s+"-") && isDigits(name[len(s)+1:]) {
			return t
		}
	}
	return None
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Decoded is one decoded record of an internal topic. Exactly one of the
// typed fields pairs is set, by topic and record type.
type Decoded struct {
	Topic Topic `json:"-"`
	// Type names the record type: TransactionLog; OffsetCommit,
	// GroupMetadata, ConsumerGroupMetadata, ...; a metadata type
	// (ProducerIds, NoOp, ...); or a control type (LEADER_CHANGE, ...).
	Type string `json:"recordType"`
	// Version is the key version for __transaction_state and
	// __consumer_offsets, the record version for metadata records.
	KeyVersion   int16 `json:"keyVersion"`
	ValueVersion int16 `json:"valueVersion"`
	// Tombstone: a null value (the key was deleted).
	Tombstone bool `json:"tombstone"`

	TxnKey   *TxnKey   `json:"txnKey,omitempty"`
	TxnValue *TxnValue `json:"txnValue,omitempty"`

	GroupKey      *GroupKey           `json:"groupKey,omitempty"`
	OffsetCommit  *OffsetCommitValue  `json:"offsetCommit,omitempty"`
	GroupMetadata *GroupMetadataValue `json:"groupMetadata,omitempty"`

	Metadata *MetadataRecord `json:"metadata,omitempty"`
	// Remote is a __remote_log_metadata record.
	Remote  *RemoteLogRecord `json:"remoteLogMetadata,omitempty"`
	Control *ControlRecord   `json:"control,omitempty"`
}

// Decode decodes one record of topic t. The returned Decoded holds
// whatever parsed (the key of a record whose value failed, the header of a
// metadata record whose body failed); the error, if any, says what did
// not. ABORT/COMMIT markers of __transaction_state or __consumer_offsets
// (transactional offset commits) come back with only Type set.
func Decode(t Topic, r *segment.Record) (*Decoded, error) {
	d := &Decoded{Topic: t, KeyVersion: -1, ValueVersion: -1}
	if r.IsControl {
		d.Type = segment.ControlTypeName(r.ControlType)
		if t == ClusterMetadata {
			c, err := DecodeControl(r.ControlType, r.Value)
			d.Control = c
			if c != nil && err == nil {
				d.ValueVersion = c.Version
			}
			d.Tombstone = r.Value == nil
			return d, err
		}
		return d, nil
	}
	d.Tombstone = r.Value == nil
	var err error
	switch t {
	case TransactionState:
		d.Type = "TransactionLog"
		if d.TxnKey, err = DecodeTxnKey(r.Key); d.TxnKey != nil {
			d.KeyVersion = d.TxnKey.Version
		}
		if err != nil {
			return d, err
		}
		if d.TxnValue, err = DecodeTxnValue(r.Value); d.TxnValue != nil {
			d.ValueVersion = d.TxnValue.Version
		}
	case ConsumerOffsets:
		if d.GroupKey, err = DecodeGroupKey(r.Key); d.GroupKey != nil {
			d.KeyVersion = d.GroupKey.Type
			d.Type = d.GroupKey.TypeName()
		}
		if err != nil {
			return d, err
		}
		switch {
		case d.GroupKey.Type <= GroupTypeOffsetCommit:
			if d.OffsetCommit, err = DecodeOffsetCommitValue(r.Value); d.OffsetCommit != nil {
				d.ValueVersion = d.OffsetCommit.Version
			}
		case d.GroupKey.Type == GroupTypeGroupMetadata:
			if d.GroupMetadata, err = DecodeGroupMetadataValue(r.Value); d.GroupMetadata != nil {
				d.ValueVersion = d.GroupMetadata.Version
			}
		default:
			// KIP-848 and share-group values are named and counted, not
			// decoded; their version prefix is still read.
			if len(r.Value) >= 2 {
				d.ValueVersion = int16(uint16(r.Value[0])<<8 | uint16(r.Value[1]))
			}
		}
	case ClusterMetadata:
		d.Metadata, err = DecodeMetadata(r.Value)
		if d.Metadata != nil {
			d.Type = d.Metadata.Type
			d.ValueVersion = int16(min(d.Metadata.Version, 32767))
		}
	case RemoteLogMetadata:
		d.Remote, err = DecodeRemoteLogMetadata(r.Value)
		if d.Remote != nil {
			d.Type = d.Remote.Type
			d.ValueVersion = int16(min(d.Remote.Version, 32767))
		}
	}
	return d, err
}
