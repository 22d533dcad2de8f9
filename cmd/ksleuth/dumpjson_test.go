package main

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// parquetColumns lists the column names of a table row type, embedded
// structs included.
func parquetColumns(t reflect.Type, cols map[string]bool) map[string]bool {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			parquetColumns(f.Type, cols)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
		if name != "" && name != "-" {
			cols[name] = true
		}
	}
	return cols
}

// dumpJSONLines runs dump --json and decodes every line.
func dumpJSONLines(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	out, errOut, code := runCLI(t, append([]string{"dump", "--json"}, args...)...)
	if code != exitOK {
		t.Fatalf("dump %v: exit %d: %s", args, code, errOut)
	}
	var objs []map[string]any
	for i, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("dump %v: line %d is not a JSON object: %v: %.80s", args, i+1, err, l)
		}
		objs = append(objs, m)
	}
	return objs
}

// checkPayload checks a payload field and its encoding: null with null,
// otherwise a string that decodes, per its encoding, to size bytes.
func checkPayload(t *testing.T, where string, m map[string]any, field, encField string, size any) {
	t.Helper()
	v, ok := m[field]
	enc, encOK := m[encField]
	if !ok || !encOK {
		t.Errorf("%s: %s or %s missing: %v", where, field, encField, m)
		return
	}
	if v == nil || enc == nil {
		if v != nil || enc != nil {
			t.Errorf("%s: %s %v with encoding %v", where, field, v, enc)
		}
		if size != nil && size != float64(-1) {
			t.Errorf("%s: %s is null but its size is %v", where, field, size)
		}
		return
	}
	s, _ := v.(string)
	var b []byte
	var err error
	switch enc {
	case "utf8":
		b = []byte(s)
	case "hex":
		b, err = hex.DecodeString(s)
	case "base64":
		b, err = base64.StdEncoding.DecodeString(s)
	default:
		t.Errorf("%s: %s = %v, want utf8, hex or base64", where, encField, enc)
		return
	}
	if err != nil {
		t.Errorf("%s: %s does not decode as %v: %v", where, field, enc, err)
	}
	if size != nil && float64(len(b)) != size {
		t.Errorf("%s: %s decodes to %d bytes, its size is %v", where, field, len(b), size)
	}
}

// TestDumpJSONConventions: dump --json speaks the tables' language: keys
// are snake_case and are the batches and records columns where those
// exist, the timestamp is under one key whatever its type, and every
// payload says how it is encoded.
func TestDumpJSONConventions(t *testing.T) {
	t.Parallel()
	batchCols := parquetColumns(reflect.TypeOf(analysis.BatchRow{}), map[string]bool{})
	recordCols := parquetColumns(reflect.TypeOf(analysis.PayloadRecordRow{}), map[string]bool{})
	// kafka-dump-log fields without a column of that name.
	batchExtra := map[string]bool{"type": true, "file": true, "last_sequence": true, "delete_horizon_ms": true}
	recordExtra := map[string]bool{"type": true, "file": true, "timestamp_type": true, "header_keys": true,
		"crc": true, "crc_valid": true, "end_txn_marker": true, "coordinator_epoch": true, "control_type_id": true,
		"key_encoding": true, "value_encoding": true, "decoded": true}
	seg := func(dir string) string { return filepath.Join(sampleDir, dir, "00000000000000000000.log") }
	cases := [][]string{
		{"--payload", seg("codecs-0"), seg("compacted-0"), seg("idempotent-0")},
		{"--payload", "--payload-encoding", "hex", seg("codecs-1")},
		{"--payload", "--payload-encoding", "base64", seg("codecs-1")},
		{"--payload", "--payload-encoding", "text", seg("compacted-0")},
		{"--payload", seg("legacy-v0-0"), seg("legacy-v1-0"), seg("upgrade-0")},
		{"--payload", seg("txn-0")},
		{filepath.Join("testdata", "state", "00000000000000000000.index"), filepath.Join("testdata", "state", "00000000000000000000.timeindex"),
			filepath.Join("testdata", "state", "00000000000000000000.txnindex"), filepath.Join("testdata", "state", "00000000000000002827.snapshot"),
			filepath.Join("testdata", "state", "leader-epoch-checkpoint"), filepath.Join(sampleDir, "replication-offset-checkpoint"),
			filepath.Join("testdata", "state", "meta.properties")},
	}
	kinds := map[string]int{}
	for _, args := range cases {
		for i, m := range dumpJSONLines(t, args...) {
			where := strings.Join(args, " ") + ": line " + strconv.Itoa(i+1)
			typ, _ := m["type"].(string)
			if typ == "" {
				t.Fatalf("%s: no type: %v", where, m)
			}
			kinds[typ]++
			for k := range m {
				if strings.ToLower(k) != k || strings.Contains(k, "-") {
					t.Errorf("%s: key %q is not snake_case", where, k)
				}
			}
			switch typ {
			case "batch":
				for k := range m {
					if !batchCols[k] && !batchExtra[k] {
						t.Errorf("%s: batch key %q is no batches column", where, k)
					}
				}
				if tt, _ := m["timestamp_type"].(string); tt == "" {
					t.Errorf("%s: batch without timestamp_type", where)
				}
			case "record":
				for k := range m {
					if !recordCols[k] && !recordExtra[k] && k != "control_type" {
						t.Errorf("%s: record key %q is no records column", where, k)
					}
				}
				if _, ok := m["timestamp"]; !ok || m["timestamp_type"] == nil {
					t.Errorf("%s: record without timestamp and timestamp_type", where)
				}
				if _, ok := m["headers"]; !ok {
					break // a control or decoded record
				}
				checkPayload(t, where, m, "key", "key_encoding", m["key_size"])
				checkPayload(t, where, m, "value", "value_encoding", m["value_size"])
				for _, h := range m["headers"].([]any) {
					checkPayload(t, where+" header", h.(map[string]any), "value", "value_encoding", nil)
				}
				kinds["payload"]++
			}
		}
	}
	for _, k := range []string{"batch", "record", "payload", "index_entry", "timeindex_entry", "snapshot_entry", "epoch_entry", "checkpoint_entry", "metadata"} {
		if kinds[k] == 0 {
			t.Errorf("no %s line among %v", k, kinds)
		}
	}
}

// TestDumpJSONPayloadNulls: a null key, value or header value is a null
// with a null encoding; an empty one is "" with an encoding; bytes that
// are not text are hex under auto.
func TestDumpJSONPayloadNulls(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "plain-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "00000000000000000000.log")
	recs := []segtest.Record{
		{Key: nil, Value: []byte{}, Headers: []segtest.Header{{Key: "n", Value: nil}, {Key: "e", Value: []byte{}}}},
		{Key: []byte{}, Value: nil},
		{Key: []byte("k"), Value: []byte{0xff, 0x00, 0x01}},
	}
	if err := os.WriteFile(p, segtest.Batch{Magic: 2, FirstTimestamp: 1700000000000, AutoDeltas: true, Records: recs}.Encode(), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	for _, m := range dumpJSONLines(t, "--payload", p) {
		if m["type"] == "record" {
			got = append(got, m)
		}
	}
	if len(got) != 3 {
		t.Fatalf("%d records, want 3", len(got))
	}
	type pv struct{ v, enc any }
	want := []map[string]pv{
		{"key": {nil, nil}, "value": {"", "utf8"}},
		{"key": {"", "utf8"}, "value": {nil, nil}},
		{"key": {"k", "utf8"}, "value": {"ff0001", "hex"}},
	}
	for i, w := range want {
		for f, x := range w {
			v, ok := got[i][f]
			if !ok || v != x.v || got[i][f+"_encoding"] != x.enc {
				t.Errorf("record %d: %s = %#v (%v), want %#v (%v)", i, f, v, got[i][f+"_encoding"], x.v, x.enc)
			}
		}
	}
	hs := got[0]["headers"].([]any)
	if n := hs[0].(map[string]any); n["value"] != nil || n["value_encoding"] != nil {
		t.Errorf("null header: %v", n)
	}
	if e := hs[1].(map[string]any); e["value"] != "" || e["value_encoding"] != "utf8" {
		t.Errorf("empty header: %v", e)
	}
}
