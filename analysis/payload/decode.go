package payload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Decoded is what DecodeValue made of one value in the Confluent wire
// format.
type Decoded struct {
	SchemaID int32
	// Schema is the id's schema, nil when the inputs do not hold it.
	Schema *Schema
	// JSON is the value as JSON (Avro JSON encoding, or the JSON Schema
	// payload compacted); nil when it was not decoded.
	JSON []byte
	// MessageIndexes is a Protobuf body's message-index path.
	MessageIndexes []int32
	// Err says why a value whose schema is known did not decode; nil when
	// it decoded, when the schema is not in the inputs and when the body is
	// Protobuf (which is recognised, not decoded).
	Err error
}

// Format is the body's format as the schema says: avro, json or protobuf;
// "" when the schema is unknown.
func (d *Decoded) Format() string {
	if d.Schema == nil {
		return ""
	}
	return strings.ToLower(d.Schema.Type)
}

// Describe is the one-line description of the value's framing, for text
// output: "avro, schema id 3", "protobuf, schema id 9, message [0]",
// "schema id 12, not in the inputs".
func (d *Decoded) Describe() string {
	var b strings.Builder
	switch {
	case d.Schema == nil:
		fmt.Fprintf(&b, "schema id %d, not in the inputs", d.SchemaID)
	default:
		fmt.Fprintf(&b, "%s, schema id %d", d.Format(), d.SchemaID)
		if d.MessageIndexes != nil {
			b.WriteString(", message [")
			for i, x := range d.MessageIndexes {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(int(x)))
			}
			b.WriteByte(']')
		}
	}
	return b.String()
}

// Skip reports whether values of topic are never decoded: Kafka's internal
// topics and the registry's own topic hold their own formats.
func Skip(topic string) bool {
	return topic == SchemasTopic || strings.HasPrefix(topic, "__")
}

// DecodeValue decodes value of topic when it is in the Confluent wire
// format; ok is false when it is not (too short, or no zero magic byte),
// or when topic is one whose values are never decoded. It never fails: a
// value that does not decode comes back with Err set, and the caller keeps
// its raw bytes. It is safe for concurrent use once Finish has run.
func (r *Registry) DecodeValue(topic string, value []byte) (Decoded, bool) {
	if Skip(topic) {
		return Decoded{}, false
	}
	w, ok := ParseWire(value)
	if !ok {
		return Decoded{}, false
	}
	d := Decoded{SchemaID: w.SchemaID}
	s, ok := r.byID[w.SchemaID]
	if !ok {
		return d, true
	}
	d.Schema = s
	if s.err != nil {
		d.Err = fmt.Errorf("schema id %d cannot be used: %w", s.ID, s.err)
		return d, true
	}
	switch s.Type {
	case TypeAvro:
		if s.avro == nil {
			d.Err = fmt.Errorf("schema id %d not parsed (the registry was not finished)", s.ID)
			return d, true
		}
		d.JSON, d.Err = DecodeAvro(s.avro, w.Body)
	case TypeJSON:
		var buf bytes.Buffer
		if err := json.Compact(&buf, w.Body); err != nil {
			d.Err = fmt.Errorf("json: %w", err)
		} else {
			d.JSON = buf.Bytes()
		}
	case TypeProtobuf:
		d.MessageIndexes, _, d.Err = MessageIndexes(w.Body)
	}
	return d, true
}

// DecodeText is DecodeValue in the shape of a renderer that either
// replaces a value's bytes with text or keeps them (the DecodeValue option
// of package records): the JSON of a value that decoded, with its format
// ("avro" or "json") as the encoding; ok is false for every other value,
// which keeps its raw bytes, a value whose schema is not in the inputs
// included.
func (r *Registry) DecodeText(topic string, value []byte) (text []byte, encoding string, ok bool) {
	d, ok := r.DecodeValue(topic, value)
	if !ok || d.JSON == nil {
		return nil, "", false
	}
	return d.JSON, d.Format(), true
}
