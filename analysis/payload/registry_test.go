package payload

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/finding"
)

func addText(r *Registry, off int64, key, value string) {
	var v []byte
	if value != "" {
		v = []byte(value)
	}
	r.Add(finding.Where{Topic: SchemasTopic, Partition: 0, File: "_schemas-0/00000000000000000000.log"}, 0, off, []byte(key), v)
}

func valueJSON(t *testing.T, subject string, version, id int, typ, schema string, refs ...Reference) string {
	t.Helper()
	m := map[string]any{"subject": subject, "version": version, "id": id, "schema": schema}
	if typ != "" {
		m["schemaType"] = typ
	}
	if refs != nil {
		m["references"] = refs
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func key(subject string, version int) string {
	b, _ := json.Marshal(map[string]any{"keytype": "SCHEMA", "subject": subject, "version": version, "magic": 1})
	return string(b)
}

func wire(id int32, body ...byte) []byte {
	return append([]byte{0, byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id)}, body...)
}

func TestRegistryRecords(t *testing.T) {
	r := NewRegistry()
	addText(r, 0, `{"keytype":"NOOP","magic":0}`, "")
	addText(r, 1, `{"keytype":"CONFIG","subject":null,"magic":0}`, `{"compatibilityLevel":"BACKWARD"}`)
	// A referenced type, defined after the schema that uses it: Finish
	// resolves references once every record is in.
	addText(r, 2, key("orders-value", 1), valueJSON(t, "orders-value", 1, 7, "",
		`{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"who","type":"shop.Customer"},{"name":"n","type":"int"}]}`,
		Reference{Name: "shop.Customer", Subject: "customer", Version: 1}))
	addText(r, 3, key("customer", 1), valueJSON(t, "customer", 1, 5, "AVRO",
		`{"type":"record","name":"Customer","namespace":"shop","fields":[{"name":"name","type":"string"}]}`))
	addText(r, 4, key("events-value", 1), valueJSON(t, "events-value", 1, 8, "JSON", `{"type":"object"}`))
	addText(r, 5, key("proto-value", 1), valueJSON(t, "proto-value", 1, 9, "PROTOBUF", `syntax = "proto3"; message M { int32 a = 1; }`))
	addText(r, 6, `{"keytype":"DELETE_SUBJECT","subject":"customer","magic":0}`, `{"subject":"customer","version":1}`)
	addText(r, 7, key("customer", 1), "") // a hard delete: still decodes
	// The same id under another subject, with the same text: no finding.
	addText(r, 8, key("copy-value", 1), valueJSON(t, "copy-value", 1, 8, "JSON", `{"type":"object"}`))
	// Bad records.
	addText(r, 9, `not json`, "")
	addText(r, 10, key("x", 1), `{"subject":"x"`)
	addText(r, 11, key("x", 1), `{"subject":"x","version":1}`)
	addText(r, 12, key("other", 1), valueJSON(t, "other", 1, 8, "JSON", `{"type":"array"}`))
	addText(r, 13, key("broken", 1), valueJSON(t, "broken", 1, 10, "", `{"type":"record","name":"B","fields":[{"name":"a","type":"nosuch"}]}`))
	addText(r, 14, key("dangling", 1), valueJSON(t, "dangling", 1, 11, "", `"string"`, Reference{Name: "q", Subject: "gone", Version: 3}))
	r.Finish()

	if got := fmt.Sprint(r.IDs()); got != "[5 7 8 9 10 11]" {
		t.Fatalf("ids %s, want [5 7 8 9 10 11]", got)
	}
	if s, _ := r.Lookup(5); !s.Deleted {
		t.Errorf("schema 5 not marked deleted after its tombstone")
	}
	var kinds []string
	for _, f := range r.Findings() {
		if f.Kind != finding.KindSchemaRecord || f.Severity != finding.Note || f.Offset == nil {
			t.Errorf("finding %+v", f)
		}
		kinds = append(kinds, finding.Text(&f))
	}
	text := strings.Join(kinds, "\n")
	for _, want := range []string{"(offset 9): _schemas key is not a JSON object", "(offset 10): _schemas value of subject \"x\"",
		"(offset 11): _schemas value of subject \"x\" has no id", "(offset 12): schema id 8 defined again",
		"(offset 13): schema id 10", "(offset 14): schema id 11 (subject \"dangling\" version 1) cannot be used: reference \"q\""} {
		if !strings.Contains(text, want) {
			t.Errorf("no finding with %q in\n%s", want, text)
		}
	}
	if len(r.Findings()) != 6 {
		t.Errorf("%d findings, want 6:\n%s", len(r.Findings()), text)
	}

	// Avro with a reference: Order{who: Customer{name: "ann"}, n: -2}.
	d, ok := r.DecodeValue("orders", wire(7, 0x06, 'a', 'n', 'n', 0x03))
	if !ok || d.Err != nil || string(d.JSON) != `{"who":{"name":"ann"},"n":-2}` || d.Describe() != "avro, schema id 7" {
		t.Errorf("avro: %+v %s %q", d, d.JSON, d.Describe())
	}
	d, _ = r.DecodeValue("orders", wire(7, 0x06, 'a'))
	if d.Err == nil || d.JSON != nil {
		t.Errorf("short avro decoded: %+v", d)
	}
	d, _ = r.DecodeValue("events", wire(8, []byte(" {\"a\": [1, 2]}\n")...))
	if d.Err != nil || string(d.JSON) != `{"a":[1,2]}` || d.Format() != "json" {
		t.Errorf("json: %+v %s", d, d.JSON)
	}
	d, _ = r.DecodeValue("events", wire(8, []byte("{nope")...))
	if d.Err == nil {
		t.Errorf("bad JSON decoded: %+v", d)
	}
	d, _ = r.DecodeValue("proto", wire(9, 0x00, 0x08, 0x01))
	if d.Err != nil || d.Describe() != "protobuf, schema id 9, message [0]" {
		t.Errorf("protobuf: %+v %q", d, d.Describe())
	}
	d, _ = r.DecodeValue("proto", wire(9, 0x04, 0x02, 0x06, 0x08))
	if d.Err != nil || d.Describe() != "protobuf, schema id 9, message [1,3]" {
		t.Errorf("protobuf nested: %+v %q", d, d.Describe())
	}
	d, ok = r.DecodeValue("t", wire(12345, 1, 2, 3))
	if !ok || d.Schema != nil || d.Err != nil || d.Describe() != "schema id 12345, not in the inputs" {
		t.Errorf("unknown id: %+v %q", d, d.Describe())
	}
	d, _ = r.DecodeValue("t", wire(10, 1))
	if d.Err == nil || !strings.Contains(d.Err.Error(), "cannot be used") {
		t.Errorf("broken schema: %+v", d)
	}
	for _, v := range [][]byte{nil, {}, {0, 0, 0, 7}, []byte("plain text"), {1, 0, 0, 0, 7, 0}} {
		if _, ok := r.DecodeValue("t", v); ok {
			t.Errorf("%q taken for the wire format", v)
		}
	}
	if _, ok := r.DecodeValue("__consumer_offsets", wire(7, 0)); ok {
		t.Errorf("an internal topic's value decoded")
	}
}

func TestMessageIndexes(t *testing.T) {
	for _, c := range []struct {
		body []byte
		want string
	}{
		{[]byte{0x00}, "[0] 1"},
		{[]byte{0x02, 0x04}, "[2] 2"},
		{[]byte{0x06, 0x00, 0x02, 0x04, 0xff}, "[0 1 2] 4"},
		{[]byte{0x01}, "error"},             // count -1
		{[]byte{0xfe, 0x01}, "error"},       // count 127
		{[]byte{0x04, 0x02}, "error"},       // one index short
		{[]byte{0x02, 0x01}, "error"},       // index -1
		{[]byte{}, "error"},                 // nothing
		{[]byte{0x80, 0x80, 0x80}, "error"}, // unterminated varint
	} {
		idx, n, err := MessageIndexes(c.body)
		got := "error"
		if err == nil {
			got = fmt.Sprint(idx, " ", n)
		}
		if got != c.want {
			t.Errorf("%x: got %s, want %s", c.body, got, c.want)
		}
	}
}

func FuzzRegistryAdd(f *testing.F) {
	f.Add([]byte(`{"keytype":"SCHEMA","subject":"s","version":1,"magic":1}`),
		[]byte(`{"subject":"s","version":1,"id":1,"schema":"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"long\"}]}"}`),
		[]byte{0, 0, 0, 0, 1, 2})
	f.Add([]byte(`{"keytype":"SCHEMA","subject":"s","version":1,"magic":1}`),
		[]byte(`{"subject":"s","version":1,"id":1,"schemaType":"JSON","schema":"{}"}`), []byte("\x00\x00\x00\x00\x01{}"))
	f.Fuzz(func(t *testing.T, key, value, payload []byte) {
		r := NewRegistry()
		addText(r, 0, string(key), string(value))
		r.Finish()
		d, ok := r.DecodeValue("t", payload)
		if ok && d.JSON != nil && !json.Valid(d.JSON) {
			t.Fatalf("invalid JSON %s", d.JSON)
		}
	})
}

func TestDecodeText(t *testing.T) {
	r := NewRegistry()
	addText(r, 0, key("s", 1), valueJSON(t, "s", 1, 1, "", `{"type":"array","items":"int"}`))
	addText(r, 1, key("j", 1), valueJSON(t, "j", 1, 2, "JSON", `{}`))
	r.Finish()
	for _, c := range []struct {
		value []byte
		want  string
	}{
		{wire(1, 0x04, 0x02, 0x04, 0x00), `avro [1,2]`},
		{wire(2, '[', ' ', '1', ']'), `json [1]`},
		{wire(1, 0x04), `raw`},  // does not decode
		{wire(3, 0x00), `raw`},  // schema not in the inputs
		{[]byte("text"), `raw`}, // not the wire format
		{wire(2, '{', '}'), `json {}`},
	} {
		text, enc, ok := r.DecodeText("t", c.value)
		got := "raw"
		if ok {
			got = enc + " " + string(text)
		}
		if got != c.want {
			t.Errorf("%x: got %s, want %s", c.value, got, c.want)
		}
	}
}

// TestSchemaErrorShort: a schema that does not parse gives a finding of
// bounded length, although the parser quotes the whole schema text.
func TestSchemaErrorShort(t *testing.T) {
	r := NewRegistry()
	text := strings.Repeat("[", 100000) + `"int"` + strings.Repeat("]", 100000)
	addText(r, 0, key("deep", 1), valueJSON(t, "deep", 1, 1, "", text))
	r.Finish()
	if len(r.Findings()) != 1 || len(r.Findings()[0].Message) > 400 {
		t.Fatalf("findings %d, first %d bytes", len(r.Findings()), len(r.Findings()[0].Message))
	}
	d, _ := r.DecodeValue("t", wire(1, 0))
	if d.Err == nil || len(d.Err.Error()) > 400 {
		t.Fatalf("decode error %v", d.Err)
	}
}
