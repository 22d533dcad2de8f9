package main

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hamba/avro/v2"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// The schemas of the payload sample, as a producer registered them.
const (
	sampleOrderSchema = `{"type":"record","name":"Order","namespace":"shop","fields":[` +
		`{"name":"id","type":"long"},{"name":"customer","type":"string"},` +
		`{"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID"]}},` +
		`{"name":"total","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},` +
		`{"name":"day","type":{"type":"int","logicalType":"date"}},` +
		`{"name":"note","type":["null","string"],"default":null}]}`
	sampleEventSchema = `{"type":"object","properties":{"kind":{"type":"string"},"n":{"type":"integer"}}}`
	sampleProtoSchema = `syntax = "proto3"; message Ping { int32 n = 1; }`
)

// wireValue frames body in the Confluent wire format.
func wireValue(id int32, body []byte) []byte {
	return append([]byte{0, byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id)}, body...)
}

func schemasRecord(t *testing.T, keytype, subject string, version int, value any) segtest.Record {
	t.Helper()
	k := map[string]any{"keytype": keytype, "magic": 0}
	if subject != "" {
		k["subject"] = subject
	}
	if keytype == "SCHEMA" {
		k["version"], k["magic"] = version, 1
	}
	kb, err := json.Marshal(k)
	if err != nil {
		t.Fatal(err)
	}
	r := segtest.Record{Key: kb}
	if value != nil {
		if r.Value, err = json.Marshal(value); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// writePayloadSample writes a log dir holding the schema registry's
// _schemas topic and three topics of values in the Confluent wire format:
// orders (Avro, schema id 1), events (JSON Schema, id 2) and pings
// (Protobuf, id 3). Beside the values that decode it holds the cases that
// must not fail: an id the registry never defined, a value too short for
// its schema, a plain text value, a null value, and a _schemas record that
// is not the registry's JSON.
func writePayloadSample(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	const ts = 1700047595000 // 2023-11-15 11:26:35 UTC, as the other sample
	write := func(part string, recs []segtest.Record) {
		t.Helper()
		b := segtest.Batch{Magic: 2, FirstTimestamp: ts, AutoDeltas: true, PartitionLeaderEpoch: 0, Records: recs}
		for i := range b.Records {
			b.Records[i].TimestampDelta = int64(i) * 10
		}
		if err := os.MkdirAll(filepath.Join(dir, part), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, part, segtest.SegmentFileName(0)), b.Encode(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("_schemas-0", []segtest.Record{
		schemasRecord(t, "NOOP", "", 0, nil),
		schemasRecord(t, "SCHEMA", "orders-value", 1, map[string]any{"subject": "orders-value", "version": 1, "id": 1, "schema": sampleOrderSchema}),
		schemasRecord(t, "SCHEMA", "events-value", 1, map[string]any{"subject": "events-value", "version": 1, "id": 2, "schemaType": "JSON", "schema": sampleEventSchema}),
		schemasRecord(t, "SCHEMA", "pings-value", 1, map[string]any{"subject": "pings-value", "version": 1, "id": 3, "schemaType": "PROTOBUF", "schema": sampleProtoSchema}),
		schemasRecord(t, "CONFIG", "orders-value", 0, map[string]any{"compatibilityLevel": "BACKWARD"}),
		{Key: []byte(`{"keytype":"SCHEMA","subject":"broken","version":1,"magic":1}`), Value: []byte(`{"subject":"broken","id":`)},
	})
	order := avro.MustParse(sampleOrderSchema)
	enc := func(v map[string]any) []byte {
		t.Helper()
		b, err := avro.Marshal(order, v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	note := "leave at the door"
	o1 := enc(map[string]any{"id": int64(4711), "customer": "ann", "status": "NEW", "total": mustRat(t, "12.34"), "day": int32(19676), "note": nil})
	o2 := enc(map[string]any{"id": int64(4712), "customer": "bob", "status": "PAID", "total": mustRat(t, "-0.50"), "day": int32(19677), "note": &note})
	write("orders-0", []segtest.Record{
		{Key: []byte("4711"), Value: wireValue(1, o1)},
		{Key: []byte("4712"), Value: wireValue(1, o2), Headers: []segtest.Header{{Key: "trace", Value: []byte("t-1")}}},
		{Key: []byte("4713"), Value: wireValue(1, o1[:len(o1)-3])}, // cut short: does not decode
		{Key: []byte("4714"), Value: wireValue(42, []byte{0x02, 0x04})},
		{Key: []byte("4715"), Value: []byte("not in the wire format")},
		{Key: []byte("4716"), Value: nil},
	})
	write("events-0", []segtest.Record{
		{Key: []byte("e1"), Value: wireValue(2, []byte(`{"kind": "login",  "n": 1}`))},
		{Key: []byte("e2"), Value: wireValue(2, []byte(`{"kind": "logout"`))},
	})
	write("pings-0", []segtest.Record{
		{Value: wireValue(3, []byte{0x00, 0x08, 0x96, 0x01})},
	})
	return dir
}

func TestDumpGoldenPayloads(t *testing.T) {
	t.Parallel()
	dir := writePayloadSample(t)
	files := []string{"_schemas-0", "orders-0", "events-0", "pings-0"}
	args := func(extra ...string) []string {
		a := append([]string{"dump"}, extra...)
		for _, f := range files {
			a = append(a, filepath.Join(dir, f, segtest.SegmentFileName(0)))
		}
		return a
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"dump_payload.txt", args("--payload")},
		{"dump_payload.jsonl", args("--payload", "--json")},
	} {
		out, errOut, code := runCLI(t, c.args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		got := strings.ReplaceAll(out+"-- stderr --\n"+errOut, dir, "SAMPLE")
		if strings.HasSuffix(c.name, ".jsonl") {
			checkJSONLines(t, c.args, strings.ReplaceAll(out, dir, "SAMPLE"))
		}
		golden(t, c.name, got)
	}
	// --decode-values none prints the values as they are.
	out, _, code := runCLI(t, args("--payload", "--decode-values", "none")...)
	if code != exitOK || strings.Contains(out, "schema id") {
		t.Errorf("--decode-values none: exit %d, output:\n%s", code, out)
	}
}

func mustRat(t *testing.T, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("bad decimal %q", s)
	}
	return r
}

// TestScanPayloadColumns: scan --payload fills value_schema_id and
// value_decoded from the sample's _schemas topic, and writes one
// payload-undecoded note per partition and schema id, at its first value.
func TestScanPayloadColumns(t *testing.T) {
	t.Parallel()
	dir := writePayloadSample(t)
	out := filepath.Join(t.TempDir(), "out")
	if _, errOut, code := runCLI(t, "scan", dir, "--out", out, "--payload", "--progress", "never", "--hash", "none"); code != exitOK {
		t.Fatalf("scan: exit %d: %s", code, errOut)
	}
	type row struct {
		Topic         string  `parquet:"topic"`
		Offset        int64   `parquet:"offset"`
		ValueSchemaID *int32  `parquet:"value_schema_id,optional"`
		ValueDecoded  *string `parquet:"value_decoded,optional"`
	}
	got := map[string]string{}
	for _, r := range readTable[row](t, filepath.Join(out, tableRecords)) {
		s := "null"
		if r.ValueSchemaID != nil {
			s = fmt.Sprint(*r.ValueSchemaID)
		}
		if r.ValueDecoded != nil {
			s += " " + *r.ValueDecoded
		}
		got[fmt.Sprintf("%s@%d", r.Topic, r.Offset)] = s
	}
	want := map[string]string{
		"orders@0":   `1 {"id":4711,"customer":"ann","status":"NEW","total":"\u0004Ò","day":19676,"note":null}`,
		"orders@1":   `1 {"id":4712,"customer":"bob","status":"PAID","total":"Î","day":19677,"note":{"string":"leave at the door"}}`,
		"orders@2":   "1",
		"orders@3":   "42",
		"orders@4":   "null",
		"orders@5":   "null",
		"events@0":   `2 {"kind":"login","n":1}`,
		"events@1":   "2",
		"pings@0":    "3",
		"_schemas@1": "null", // the registry's own topic is never decoded
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got %s, want %s", k, got[k], w)
		}
	}
	type anomaly struct {
		Kind    string `parquet:"kind"`
		File    string `parquet:"file"`
		Offset  *int64 `parquet:"offset,optional"`
		Message string `parquet:"message"`
	}
	var notes []string
	for _, a := range readTable[anomaly](t, filepath.Join(out, tableAnomalies)) {
		if a.Kind == "payload-undecoded" || a.Kind == "schema-record-invalid" {
			notes = append(notes, fmt.Sprintf("%s %s@%d: %s", a.Kind, a.File, *a.Offset, a.Message))
		}
	}
	sort.Strings(notes)
	wantNotes := []string{
		"payload-undecoded events-0/00000000000000000000.log@1: 1 value(s) with schema id 2 did not decode; the first: json: unexpected end of JSON input",
		"payload-undecoded orders-0/00000000000000000000.log@2: 1 value(s) with schema id 1 did not decode; the first: avro: at body byte 10: field day: varint runs past the end of the body",
		`schema-record-invalid _schemas-0/00000000000000000000.log@5: _schemas value of subject "broken" is not a schema record: unexpected end of JSON input`,
	}
	if strings.Join(notes, "\n") != strings.Join(wantNotes, "\n") {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(wantNotes, "\n"))
	}
	// --decode-values none leaves both columns null.
	out2 := filepath.Join(t.TempDir(), "out")
	if _, errOut, code := runCLI(t, "scan", dir, "--out", out2, "--payload", "--decode-values", "none", "--progress", "never", "--hash", "none"); code != exitOK {
		t.Fatalf("scan: exit %d: %s", code, errOut)
	}
	for _, r := range readTable[row](t, filepath.Join(out2, tableRecords)) {
		if r.ValueSchemaID != nil || r.ValueDecoded != nil {
			t.Errorf("--decode-values none: %s@%d decoded", r.Topic, r.Offset)
		}
	}
}
