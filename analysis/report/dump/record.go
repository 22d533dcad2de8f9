package dump

import (
	"bufio"
	"encoding/json"
	"fmt"

	"github.com/ksleuth/ksleuth/analysis/payload"
	"github.com/ksleuth/ksleuth/analysis/report/payloadenc"
	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/ksleuth/ksleuth/segment"
)

// record prints one record, decoded by its internal topic's schema when
// the file is one's. A record that does not decode is a finding, reported
// after the record's line.
func (d *Dumper) record(name string, b *segment.Batch, r *segment.Record) {
	var dec *topics.Decoded
	if d.topic != topics.None {
		var err error
		if dec, err = topics.Decode(d.topic, r); err != nil {
			defer d.decodeFinding(name, b, r, err)
		}
	}
	if d.o.JSON {
		d.recordJSON(name, b, r, dec)
	} else {
		d.recordText(name, b, r, dec)
	}
}

// recordJSON writes a record as an object with the records table's column
// names.
func (d *Dumper) recordJSON(name string, b *segment.Batch, r *segment.Record, dec *topics.Decoded) {
	keys := make([]string, len(r.Headers))
	for i, h := range r.Headers {
		keys[i] = string(h.Key)
	}
	m := map[string]any{
		"type": "record", "file": name, "offset": r.Offset, "timestamp_type": r.TimestampType.String(),
		"timestamp": payloadenc.NonNegative(r.Timestamp), "key_size": r.KeySize(), "value_size": r.ValueSize(),
		"sequence": r.Sequence, "header_keys": keys, "batch_position": b.Position,
	}
	if b.Magic < 2 {
		m["crc_valid"], m["crc"] = r.CRCValid, r.CRC
	}
	if r.IsControl {
		controlJSON(m, r)
	}
	if dec != nil && (dec.Control != nil || !r.IsControl) {
		m["decoded"] = dec
	}
	if d.o.Payload && !r.IsControl && dec == nil {
		enc := d.o.Encoding
		m["key"], m["key_encoding"] = enc.EncodeJSON(r.Key)
		m["value"], m["value_encoding"] = enc.EncodeJSON(r.Value)
		if dec, ok := d.decodeValue(r); ok {
			valueJSON(m, dec)
			if dec.Err != nil {
				defer d.undecodedNote(name, b, r, dec)
			}
		}
		hs := make([]map[string]any, len(r.Headers))
		for i, h := range r.Headers {
			v, e := enc.EncodeJSON(h.Value)
			hs[i] = map[string]any{"key": string(h.Key), "value": v, "value_encoding": e}
		}
		m["headers"] = hs
	}
	payloadenc.WriteLine(d.out, m)
}

// recordText writes a record as kafka-dump-log's "| offset: ..." line.
func (d *Dumper) recordText(name string, b *segment.Batch, r *segment.Record, dec *topics.Decoded) {
	w := d.out
	fmt.Fprintf(w, "| offset: %d %s: %d keySize: %d valueSize: %d", r.Offset, r.TimestampType.String(), r.Timestamp, r.KeySize(), r.ValueSize())
	if b.Magic < 2 {
		fmt.Fprintf(w, " isValid: %t crc: %d", r.CRCValid, r.CRC)
	} else {
		fmt.Fprintf(w, " sequence: %d headerKeys: [", r.Sequence)
		for i, h := range r.Headers {
			if i > 0 {
				w.WriteByte(',')
			}
			w.Write(h.Key)
		}
		w.WriteByte(']')
	}
	switch {
	case r.IsControl:
		controlText(w, r, dec)
	case dec != nil:
		d.decodedText(w, r, dec)
	case d.o.Payload:
		if dec, ok := d.payloadText(w, r); ok && dec.Err != nil {
			defer d.undecodedNote(name, b, r, dec)
		}
	}
	w.WriteByte('\n')
}

// payloadText appends a record's key, value and headers, and returns the
// value's decoding when it is in the Confluent wire format.
func (d *Dumper) payloadText(w *bufio.Writer, r *segment.Record) (payload.Decoded, bool) {
	enc := d.o.Encoding
	if r.Key != nil {
		fmt.Fprintf(w, " key: %s", enc.Encode(r.Key))
	}
	dec, decoded := d.decodeValue(r)
	if decoded {
		fmt.Fprintf(w, " payload: %s", d.valueText(r, dec))
	} else if r.Value != nil {
		fmt.Fprintf(w, " payload: %s", enc.Encode(r.Value))
	}
	if len(r.Headers) > 0 {
		w.WriteString(" headers: [")
		for i, h := range r.Headers {
			if i > 0 {
				w.WriteByte(',')
			}
			w.Write(h.Key)
			if h.Value == nil {
				w.WriteString("=null")
			} else {
				w.WriteString("=" + enc.Encode(h.Value))
			}
		}
		w.WriteByte(']')
	}
	return dec, decoded
}

// controlText appends what a control record says: a transaction marker
// as kafka-dump-log prints it, any other type by name and number.
func controlText(w *bufio.Writer, r *segment.Record, dec *topics.Decoded) {
	switch r.ControlType {
	case segment.ControlAbort, segment.ControlCommit:
		fmt.Fprintf(w, " endTxnMarker: %s coordinatorEpoch: %d", segment.ControlTypeName(r.ControlType), r.CoordinatorEpoch)
	default:
		fmt.Fprintf(w, " controlType: %s(%d)", segment.ControlTypeName(r.ControlType), r.ControlType)
		if dec != nil && dec.Control != nil {
			w.WriteString(" decoded: ")
			w.Write(mustJSON(dec.Control))
		}
	}
}

func controlJSON(m map[string]any, r *segment.Record) {
	switch r.ControlType {
	case segment.ControlAbort, segment.ControlCommit:
		m["end_txn_marker"] = segment.ControlTypeName(r.ControlType)
		m["coordinator_epoch"] = r.CoordinatorEpoch
	default:
		m["control_type"] = segment.ControlTypeName(r.ControlType)
	}
	m["control_type_id"] = r.ControlType
}

// decodedText appends the decoded key and value of an internal-topic
// record, in kafka-dump-log's decoder forms where it has one
// (--transaction-log-decoder, --offsets-decoder, --cluster-metadata-decoder)
// with the fields those forms leave out added at the end. A part that did
// not decode is shown raw, or for a metadata record in kafka-dump-log's
// error form.
func (d *Dumper) decodedText(w *bufio.Writer, r *segment.Record, dec *topics.Decoded) {
	switch {
	case dec.TxnKey != nil:
		fmt.Fprintf(w, " key: transaction_metadata::transactionalId=%s", dec.TxnKey.TransactionalID)
	case dec.GroupKey != nil:
		fmt.Fprintf(w, " key: %s", mustJSON(dec.GroupKey))
	case r.Key != nil:
		fmt.Fprintf(w, " key: %s", d.o.Encoding.Encode(r.Key))
	}
	switch {
	case dec.Tombstone:
		w.WriteString(" payload: <DELETE>")
	case dec.TxnValue != nil:
		v := dec.TxnValue
		fmt.Fprintf(w, " payload: producerId:%d,producerEpoch:%d,state=%s,partitions=[%s],txnLastUpdateTimestamp=%d,txnTimeoutMs=%d,txnStartTimestamp=%d",
			v.ProducerID, v.ProducerEpoch, v.State, v.PartitionList(), v.LastUpdateMs, v.TimeoutMs, v.StartMs)
		if v.Version >= 1 {
			fmt.Fprintf(w, ",previousProducerId=%d,nextProducerId=%d,nextProducerEpoch=%d,clientTransactionVersion=%d",
				v.PreviousProducerID, v.NextProducerID, v.NextProducerEpoch, v.ClientTransactionVersion)
		}
	case dec.OffsetCommit != nil:
		fmt.Fprintf(w, " payload: %s", mustJSON(dec.OffsetCommit))
	case dec.GroupMetadata != nil:
		fmt.Fprintf(w, " payload: %s", mustJSON(dec.GroupMetadata))
	case dec.Metadata != nil && dec.Metadata.Data != nil:
		w.WriteString(" payload: ")
		w.Write(dec.Metadata.KafkaJSON())
	case dec.Metadata != nil:
		// The form kafka-dump-log prints for a record it cannot read; the
		// finding on the error stream says why.
		fmt.Fprintf(w, " payload: Error at %d, skipping. %s record v%d not decoded (%d-byte body)",
			r.Offset, dec.Metadata.Type, dec.Metadata.Version, dec.Metadata.BodySize)
	case dec.Remote.Complete():
		w.WriteString(" payload: ")
		w.WriteString(dec.Remote.KafkaText())
	case r.Value != nil:
		if dec.GroupKey != nil && dec.ValueVersion >= 0 {
			fmt.Fprintf(w, " payload: <%s value v%d, %d bytes, not decoded>", dec.Type, dec.ValueVersion, len(r.Value))
		} else {
			fmt.Fprintf(w, " payload: %s", d.o.Encoding.Encode(r.Value))
		}
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain structs of numbers, strings and slices
	}
	return b
}
