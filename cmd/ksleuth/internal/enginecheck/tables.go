package enginecheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// The probe record: a producer id above 2^53 (a float64 cannot hold it),
// a millisecond timestamp later than the sample's, a null key, an empty
// value and a header with a null value. A second batch of the producer
// skips sequences: its finding puts the producer id in the nullable
// anomalies.producer_id.
const (
	ProbeTopic = "probe"
	ProbePID   = int64(1)<<53 + 1
	ProbeTS    = int64(1800000000123)
)

// WriteProbeDir writes the probe's log dir and returns it.
func WriteProbeDir(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	part := filepath.Join(root, ProbeTopic+"-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	b := segtest.Batch{Magic: 2, BaseOffset: 0, FirstTimestamp: ProbeTS, AutoDeltas: true,
		Producer: &segtest.Producer{ID: ProbePID, Epoch: 3, BaseSequence: 0},
		Records: []segtest.Record{
			{Key: nil, Value: []byte{}, Headers: []segtest.Header{{Key: "h", Value: []byte("x")}, {Key: "n", Value: nil}}},
			{Key: []byte("k"), Value: []byte("v")},
		}}
	gap := segtest.Batch{Magic: 2, BaseOffset: 2, FirstTimestamp: ProbeTS - 1, AutoDeltas: true,
		Producer: &segtest.Producer{ID: ProbePID, Epoch: 3, BaseSequence: 7},
		Records:  []segtest.Record{{Key: []byte("g"), Value: []byte("g")}}}
	if err := os.WriteFile(filepath.Join(part, "00000000000000000000.log"), append(b.Encode(), gap.Encode()...), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// Line is one JSON line of the engine scripts (tables.py,
// duckdb_tables.cjs).
type Line struct {
	Kind     string          `json:"kind"`
	Engine   string          `json:"engine"`
	Table    string          `json:"table"`
	Column   string          `json:"column"`
	Type     string          `json:"type"`
	Nullable *bool           `json:"nullable"`
	Nulls    int64           `json:"nulls"`
	Rows     int64           `json:"rows"`
	What     string          `json:"what"`
	Value    json.RawMessage `json:"value"`
}

// TableColumns describes every table of a scan output dir with the
// Parquet schema ksleuth wrote, and its row count.
func TableColumns(t testing.TB, out string) (map[string][]export.Column, map[string]int64) {
	t.Helper()
	cols, rows := map[string][]export.Column{}, map[string]int64{}
	files, _ := filepath.Glob(filepath.Join(out, "*.parquet"))
	parts, _ := filepath.Glob(filepath.Join(out, export.Records, "*.parquet"))
	for _, f := range append(files, parts...) {
		name := strings.TrimSuffix(filepath.Base(f), ".parquet")
		if strings.HasPrefix(name, "part-") {
			name = export.Records
		}
		c, n, err := export.Describe(f)
		if err != nil {
			t.Fatal(err)
		}
		if prev, ok := cols[name]; ok && fmt.Sprint(prev) != fmt.Sprint(c) {
			t.Fatalf("%s: schema differs between parts: %v vs %v", f, prev, c)
		}
		cols[name] = c
		rows[name] += n
	}
	return cols, rows
}

// ScanProbe runs `scan --records --payload` over the sample and the
// probe into a new dir, and returns the dir with its tables' columns and
// row counts.
func ScanProbe(t testing.TB, run func(args ...string)) (out string, cols map[string][]export.Column, rows map[string]int64) {
	t.Helper()
	out = filepath.Join(t.TempDir(), "out")
	run("scan", "--records", "--payload", "--progress", "never", "--out", out, GeneratedDir, WriteProbeDir(t))
	cols, rows = TableColumns(t, out)
	if len(cols) < 9 || rows[export.Records] == 0 {
		t.Fatalf("scan wrote too little: %v", rows)
	}
	return out, cols, rows
}

// engineRead is what tables.py printed: the columns each engine read
// (engine|table|column), the extremes of the int64 and timestamp columns
// (table|column|what, then engine), and the probe's headers per engine.
type engineRead struct {
	seen    map[string]Line
	values  map[string]map[string]string
	headers map[string]string
}

func parseEngineRead(t testing.TB, raw []byte) engineRead {
	t.Helper()
	r := engineRead{seen: map[string]Line{}, values: map[string]map[string]string{}, headers: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		switch l.Kind {
		case "column":
			r.seen[l.Engine+"|"+l.Table+"|"+l.Column] = l
		case "value":
			k := l.Table + "|" + l.Column + "|" + l.What
			if r.values[k] == nil {
				r.values[k] = map[string]string{}
			}
			var v string
			if err := json.Unmarshal(l.Value, &v); err != nil {
				t.Fatal(err)
			}
			r.values[k][l.Engine] = v
		case "headers":
			r.headers[l.Engine] = string(l.Value)
		}
	}
	return r
}

// CheckPyEngines runs tables.py with the Python engines given (pyarrow
// first: the others' values are held to its) over a ScanProbe output,
// and holds each column to its documented type and nullability, every
// int64 and timestamp column's extremes to pyarrow's (the probe's
// producer id and timestamp among them), and the probe's headers to what
// was written. With pandas, "pandas-default" (plain read_parquet) is
// checked too. It returns the documented types the tables use.
func CheckPyEngines(t testing.TB, python, out string, cols map[string][]export.Column, rows map[string]int64, engines ...string) map[string]bool {
	t.Helper()
	if len(engines) == 0 || engines[0] != "pyarrow" {
		t.Fatalf("engines %v: pyarrow comes first, as the reference", engines)
	}
	r := parseEngineRead(t, RunPython(t, python, "", Script("tables.py"), out, ProbeTopic, "0", strings.Join(engines, ",")))
	all := engines
	if slices.Contains(engines, "pandas") {
		all = append(slices.Clone(engines), "pandas-default")
	}
	used := map[string]bool{}
	for table, cs := range cols {
		for _, engine := range all {
			checkColumns(t, r, engine, table, cs, rows[table], used)
		}
	}
	var keys []string
	for k := range r.values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ref, ok := r.values[k]["pyarrow"]
		for _, e := range all {
			if v := r.values[k][e]; !ok || v != ref {
				t.Errorf("%s: %s reads %q, pyarrow %q", k, e, v, ref)
			}
		}
	}
	// anomalies.producer_id holds nulls beside the probe's sequence gap:
	// the column pandas read as float64 before the footer named it Int64.
	for _, k := range []string{"records|producer_id|max", "batches|producer_id|max", "producers|producer_id|max", "anomalies|producer_id|max"} {
		for _, e := range all {
			if got := r.values[k][e]; got != fmt.Sprint(ProbePID) {
				t.Errorf("%s: %s = %q, want the probe's %d", e, k, got, ProbePID)
			}
		}
	}
	for _, e := range all {
		if l := r.seen[e+"|anomalies|producer_id"]; l.Nulls == 0 {
			t.Errorf("%s: anomalies.producer_id holds no null: the probe does not test nullable integers", e)
		}
	}
	if got := r.values["records|timestamp|max"]["pyarrow"]; got != fmt.Sprint(ProbeTS) {
		t.Errorf("records max timestamp = %q ms, want %d", got, ProbeTS)
	}
	for _, e := range engines {
		if got, want := r.headers[e], `[["h", "78"], ["n", null]]`; got != want {
			t.Errorf("%s: probe headers %s, want %s", e, got, want)
		}
	}
	return used
}

// checkColumns holds what one engine read of a table to the columns
// ksleuth wrote (cs, n rows), and notes the documented types it checked.
func checkColumns(t testing.TB, r engineRead, engine, table string, cs []export.Column, n int64, used map[string]bool) {
	t.Helper()
	read := 0
	for _, c := range cs {
		l, ok := r.seen[engine+"|"+table+"|"+c.Name]
		if !ok {
			t.Errorf("%s: %s.%s not read", engine, table, c.Name)
			continue
		}
		read++
		if l.Rows != n {
			t.Errorf("%s: %s has %d rows, ksleuth wrote %d", engine, table, l.Rows, n)
		}
		if !c.Nullable && l.Nulls != 0 {
			t.Errorf("%s: %s.%s is documented not null but has %d nulls", engine, table, c.Name, l.Nulls)
		}
		switch engine {
		case "pandas-default":
			// The pandas footer key makes a nullable integer column
			// Int64 or Int32, never the float64 that rounds above 2^53.
			if want := pandasDefaultInt(c); want != "" && l.Type != want {
				t.Errorf("pandas default: %s.%s is %s, want %s", table, c.Name, l.Type, want)
			}
			continue
		case "pyarrow":
			if l.Nullable == nil || *l.Nullable != c.Nullable {
				t.Errorf("pyarrow: %s.%s nullable %v, written %v", table, c.Name, l.Nullable, c.Nullable)
			}
		}
		used[c.Type] = true
		if want, ok := EngineType(engine, c.Type); !ok || l.Type != want {
			t.Errorf("%s: %s.%s (%s) reads as %q, want %q", engine, table, c.Name, c.Type, l.Type, want)
		}
	}
	prefix, extra := engine+"|"+table+"|", -read
	for k := range r.seen {
		if strings.HasPrefix(k, prefix) {
			extra++
		}
	}
	if extra != 0 {
		t.Errorf("%s: %s has %d columns ksleuth did not write", engine, table, extra)
	}
}

// pandasDefaultInt is the dtype plain pd.read_parquet gives an integer
// column: numpy's when it cannot be null, pandas' nullable one when it
// can; "" for other columns.
func pandasDefaultInt(c export.Column) string {
	if c.Type != "int64" && c.Type != "int32" {
		return ""
	}
	if c.Nullable {
		return "I" + c.Type[1:]
	}
	return c.Type
}
