package main

import (
	"fmt"

	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/payload/payloadtest"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

func writePayloadSample(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := payloadtest.WriteSample(dir); err != nil {
		t.Fatal(err)
	}
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
		// The findings on stderr wrap at 120 columns, and where depends on
		// the length of the temporary dir's path: compared unwrapped.
		got := strings.ReplaceAll(out+"-- stderr --\n"+unwrap(errOut), dir, "SAMPLE")
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
