// Package payloadtest writes a small log dir whose values are in the
// Confluent wire format, with the schema registry's _schemas topic beside
// them: the sample of docs/payloads.md and of the payload golden files.
//
// Run using:
//
//	go run ./cmd/ksleuth-gen -payloads -out /tmp/payloads
package payloadtest

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"

	"github.com/hamba/avro/v2"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// The schemas of the sample, as a producer registered them.
const (
	OrderSchema = `{"type":"record","name":"Order","namespace":"shop","fields":[` +
		`{"name":"id","type":"long"},{"name":"customer","type":"string"},` +
		`{"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID"]}},` +
		`{"name":"total","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},` +
		`{"name":"day","type":{"type":"int","logicalType":"date"}},` +
		`{"name":"note","type":["null","string"],"default":null}]}`
	EventSchema = `{"type":"object","properties":{"kind":{"type":"string"},"n":{"type":"integer"}}}`
	PingSchema  = `syntax = "proto3"; message Ping { int32 n = 1; }`
)

// firstTimestamp is the sample's first record time, 2023-11-15 11:26:35
// UTC, as in the generated sample log dir.
const firstTimestamp = 1700047595000

// Wire frames body in the Confluent wire format.
func Wire(id int32, body []byte) []byte {
	return append([]byte{0, byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id)}, body...)
}

func schemasRecord(keytype, subject string, version int, value any) segtest.Record {
	k := map[string]any{"keytype": keytype, "magic": 0}
	if subject != "" {
		k["subject"] = subject
	}
	if keytype == "SCHEMA" {
		k["version"], k["magic"] = version, 1
	}
	r := segtest.Record{Key: mustJSON(k)}
	if value != nil {
		r.Value = mustJSON(value)
	}
	return r
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of strings and numbers
	}
	return b
}

// WriteSample writes the sample into dir: the _schemas topic and three
// topics, orders (Avro, schema id 1), events (JSON Schema, id 2) and pings
// (Protobuf, id 3), one segment each. Beside the values that decode it
// holds the cases that must not fail: an id the registry never defined,
// an Avro value cut short, a JSON value that is not JSON, a plain text
// value, a null value, and a _schemas record that is not the registry's
// JSON. The output is the same on every run.
func WriteSample(dir string) error {
	write := func(part string, recs []segtest.Record) error {
		b := segtest.Batch{Magic: 2, FirstTimestamp: firstTimestamp, AutoDeltas: true, Records: recs}
		for i := range b.Records {
			b.Records[i].TimestampDelta = int64(i) * 10
		}
		if err := os.MkdirAll(filepath.Join(dir, part), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, part, segtest.SegmentFileName(0)), b.Encode(), 0o644)
	}
	order, err := avro.Parse(OrderSchema)
	if err != nil {
		return err
	}
	enc := func(v map[string]any) ([]byte, error) { return avro.Marshal(order, v) }
	note := "leave at the door"
	o1, err := enc(map[string]any{"id": int64(4711), "customer": "ann", "status": "NEW", "total": big.NewRat(1234, 100), "day": int32(19676), "note": nil})
	if err != nil {
		return fmt.Errorf("avro: %w", err)
	}
	o2, err := enc(map[string]any{"id": int64(4712), "customer": "bob", "status": "PAID", "total": big.NewRat(-50, 100), "day": int32(19677), "note": &note})
	if err != nil {
		return fmt.Errorf("avro: %w", err)
	}
	parts := []struct {
		name string
		recs []segtest.Record
	}{
		{"_schemas-0", []segtest.Record{
			schemasRecord("NOOP", "", 0, nil),
			schemasRecord("SCHEMA", "orders-value", 1, map[string]any{"subject": "orders-value", "version": 1, "id": 1, "schema": OrderSchema}),
			schemasRecord("SCHEMA", "events-value", 1, map[string]any{"subject": "events-value", "version": 1, "id": 2, "schemaType": "JSON", "schema": EventSchema}),
			schemasRecord("SCHEMA", "pings-value", 1, map[string]any{"subject": "pings-value", "version": 1, "id": 3, "schemaType": "PROTOBUF", "schema": PingSchema}),
			schemasRecord("CONFIG", "orders-value", 0, map[string]any{"compatibilityLevel": "BACKWARD"}),
			{Key: []byte(`{"keytype":"SCHEMA","subject":"broken","version":1,"magic":1}`), Value: []byte(`{"subject":"broken","id":`)},
		}},
		{"orders-0", []segtest.Record{
			{Key: []byte("4711"), Value: Wire(1, o1)},
			{Key: []byte("4712"), Value: Wire(1, o2), Headers: []segtest.Header{{Key: "trace", Value: []byte("t-1")}}},
			{Key: []byte("4713"), Value: Wire(1, o1[:len(o1)-3])}, // cut short: does not decode
			{Key: []byte("4714"), Value: Wire(42, []byte{0x02, 0x04})},
			{Key: []byte("4715"), Value: []byte("not in the wire format")},
			{Key: []byte("4716"), Value: nil},
		}},
		{"events-0", []segtest.Record{
			{Key: []byte("e1"), Value: Wire(2, []byte(`{"kind": "login",  "n": 1}`))},
			{Key: []byte("e2"), Value: Wire(2, []byte(`{"kind": "logout"`))},
		}},
		{"pings-0", []segtest.Record{
			{Value: Wire(3, []byte{0x00, 0x08, 0x96, 0x01})},
		}},
	}
	for _, p := range parts {
		if err := write(p.name, p.recs); err != nil {
			return err
		}
	}
	return nil
}
