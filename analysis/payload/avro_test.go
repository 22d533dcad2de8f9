package payload

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hamba/avro/v2"
)

// fastavroPython returns a Python interpreter that imports fastavro:
// $KSLEUTH_PYTHON, else the virtualenv .ci/run installs under the user's
// cache dir. It skips loudly when there is none, and fails in CI.
func fastavroPython(t *testing.T) string {
	t.Helper()
	var cands []string
	if p := os.Getenv("KSLEUTH_PYTHON"); p != "" {
		cands = append(cands, p)
	}
	if c, err := os.UserCacheDir(); err == nil {
		cands = append(cands, filepath.Join(c, "ksleuth-ci", "pyenv", "bin", "python"))
	}
	for _, p := range cands {
		if exec.Command(p, "-c", "import fastavro").Run() == nil {
			return p
		}
	}
	msg := "fastavro is not available (run .ci/run, or pip install fastavro into a virtualenv and set KSLEUTH_PYTHON to its python)"
	if os.Getenv("CI") != "" || os.Getenv("KSLEUTH_REQUIRE_PYENGINES") != "" {
		t.Fatal(msg)
	}
	t.Skip("SKIPPING THE FASTAVRO TRUTH TEST: " + msg)
	return ""
}

func mustParse(t testing.TB, text string) avro.Schema {
	t.Helper()
	s, err := parseWithCache(text, &avro.SchemaCache{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAvroAgainstFastavro decodes 200 payloads fastavro wrote for a schema
// with every Avro type (records, enums, arrays, maps, unions of named and
// unnamed types, fixed, decimal on bytes and fixed, date, timestamps, uuid)
// and holds each to the JSON fastavro's json_writer writes for the same
// datum.
func TestAvroAgainstFastavro(t *testing.T) {
	python := fastavroPython(t)
	out := filepath.Join(t.TempDir(), "truth.jsonl")
	cmd := exec.Command(python, filepath.Join("testdata", "fastavro_truth.py"), filepath.Join("testdata", "rich.avsc"), out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fastavro_truth.py: %v\n%s", err, b)
	}
	text, err := os.ReadFile(filepath.Join("testdata", "rich.avsc"))
	if err != nil {
		t.Fatal(err)
	}
	s := mustParse(t, string(text))
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n, branches := 0, map[string]bool{}
	for sc.Scan() {
		var line struct {
			Hex  string          `json:"hex"`
			JSON json.RawMessage `json:"json"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		body, err := hex.DecodeString(line.Hex)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeAvro(s, body)
		if err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("line %d: not JSON: %v\n%s", n+1, err, got)
		}
		if err := json.Unmarshal(line.JSON, &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("line %d:\n got %s\nwant %s", n+1, got, line.JSON)
		}
		if m, ok := g.(map[string]any)["maybe"].(map[string]any); ok {
			for k := range m {
				branches[k] = true
			}
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 200 {
		t.Fatalf("%d payloads, want 200", n)
	}
	// The truth must reach the union branches, or it tests little.
	for _, b := range []string{"string", "bytes", "boolean", "double", "long"} {
		if !branches[b] {
			t.Errorf("no payload took the %s branch of the union", b)
		}
	}
}

func TestAvroHostile(t *testing.T) {
	cases := []struct {
		name, schema string
		body         []byte
		want         string
	}{
		{"huge string", `"string"`, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, "past the end"},
		{"negative length", `"bytes"`, []byte{0x01}, "negative length"},
		{"nulls forever", `{"type":"array","items":"null"}`, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, "more than"},
		{"empty records forever", `{"type":"array","items":{"type":"record","name":"E","fields":[]}}`, []byte{0xfe, 0xff, 0xff, 0xff, 0x0f}, "more than"},
		{"huge block size", `{"type":"array","items":"int"}`, []byte{0x01, 0xfe, 0xff, 0xff, 0xff, 0x0f}, "block size"},
		{"enum index", `{"type":"enum","name":"E","symbols":["A"]}`, []byte{0x02}, "index 1 of 1"},
		{"union index", `["null","int"]`, []byte{0x04}, "union index 2"},
		{"int range", `"int"`, []byte{0x80, 0x80, 0x80, 0x80, 0x20}, "out of range"},
		{"boolean", `"boolean"`, []byte{0x02}, "boolean byte 2"},
		{"fixed short", `{"type":"fixed","name":"F","size":4}`, []byte{1, 2}, "past the end"},
		{"trailing", `"int"`, []byte{0x02, 0x00}, "1 byte(s) left"},
		{"varint too long", `"long"`, bytes.Repeat([]byte{0xff}, 11), "longer than 10"},
		{"truncated varint", `"long"`, []byte{0xff}, "past the end"},
		{"deep", `{"type":"record","name":"N","fields":[{"name":"n","type":["null","N"]}]}`, bytes.Repeat([]byte{0x02}, 100), "nested deeper"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeAvro(mustParse(t, c.schema), c.body)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want one saying %q", err, c.want)
			}
		})
	}
}

func TestAvroRecursive(t *testing.T) {
	s := mustParse(t, `{"type":"record","name":"N","namespace":"x","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","N"]}]}`)
	got, err := DecodeAvro(s, []byte{0x02, 0x02, 0x04, 0x00})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"v":1,"next":{"x.N":{"v":2,"next":null}}}`; string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestAvroFloats(t *testing.T) {
	s := mustParse(t, `{"type":"array","items":"double"}`)
	body := []byte{0x06,
		0, 0, 0, 0, 0, 0, 0xf8, 0x7f, // NaN
		0, 0, 0, 0, 0, 0, 0xf0, 0x7f, // +Inf
		0, 0, 0, 0, 0, 0, 0xf0, 0xff, // -Inf
		0x00}
	got, err := DecodeAvro(s, body)
	if err != nil {
		t.Fatal(err)
	}
	if want := `["NaN","Infinity","-Infinity"]`; string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func FuzzDecodeAvro(f *testing.F) {
	text, err := os.ReadFile(filepath.Join("testdata", "rich.avsc"))
	if err != nil {
		f.Fatal(err)
	}
	schemas := []avro.Schema{
		mustParse(f, string(text)),
		mustParse(f, `{"type":"array","items":"null"}`),
		mustParse(f, `{"type":"map","values":["null","string",{"type":"array","items":"bytes"}]}`),
		mustParse(f, `{"type":"record","name":"N","fields":[{"name":"n","type":["null","N"]},{"name":"f","type":"float"}]}`),
	}
	f.Add(uint8(0), []byte{})
	f.Add(uint8(1), []byte{0xfe, 0xff, 0xff, 0xff, 0x0f})
	f.Add(uint8(2), []byte{0x02, 0x02, 'k', 0x02, 0x02, 'v', 0x00})
	f.Add(uint8(3), []byte{0x02, 0x00, 0, 0, 0x80, 0x3f, 0, 0, 0x80, 0x3f})
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		out, err := DecodeAvro(schemas[int(which)%len(schemas)], body)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("decoded to invalid JSON: %s", out)
		}
		// JSON is at most 6 bytes per body byte (\u00XX), plus what the
		// schema prints for values of no bytes: bounded by maxValues.
		if len(out) > maxOutput+6*len(body)+64 {
			t.Fatalf("%d bytes of JSON from %d bytes", len(out), len(body))
		}
	})
}
