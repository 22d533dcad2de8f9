package enginetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// The engines a user reads the tables with, beside DuckDB (its own tests
// are in sql_duckdb_test.go and cmd/ksleuth): pyarrow, pandas with its pyarrow engine,
// polars, and Spark in local mode, all from one Python virtualenv.
var pyEngines = []string{"pyarrow", "pandas", "polars", "spark"}

// engineScalars is how each engine presents the scalar types
// docs/tables.md documents, read the way docs/tables.md tells users to.
var engineScalars = map[string]map[string]string{
	"pyarrow": {"int32": "int32", "int64": "int64", "string": "string", "bool": "bool", "binary": "binary", "timestamp": "timestamp[ms, tz=UTC]"},
	"pandas": {"int32": "int32[pyarrow]", "int64": "int64[pyarrow]", "string": "string[pyarrow]", "bool": "bool[pyarrow]",
		"binary": "binary[pyarrow]", "timestamp": "timestamp[ms, tz=UTC][pyarrow]"},
	"polars": {"int32": "Int32", "int64": "Int64", "string": "String", "bool": "Boolean", "binary": "Binary",
		"timestamp": "Datetime(time_unit='ms', time_zone='UTC')"},
	"spark": {"int32": "int", "int64": "bigint", "string": "string", "bool": "boolean", "binary": "binary", "timestamp": "timestamp"},
	"duckdb": {"int32": "INTEGER", "int64": "BIGINT", "string": "VARCHAR", "bool": "BOOLEAN", "binary": "BLOB",
		"timestamp": "TIMESTAMP WITH TIME ZONE"},
}

// engineType is how an engine presents a documented type: a scalar, or
// "list of struct(name type[ null], ...)" (lists of non-null structs).
func engineType(engine, doc string) (string, bool) {
	if s, ok := engineScalars[engine][doc]; ok {
		return s, true
	}
	if elem, ok := strings.CutPrefix(doc, "list of "); ok {
		if et, ok := engineScalars[engine][elem]; ok {
			return engineList(engine, et), true
		}
	}
	inner, ok := strings.CutPrefix(doc, "list of struct(")
	if !ok || !strings.HasSuffix(inner, ")") {
		return "", false
	}
	var fields []string
	for _, f := range strings.Split(strings.TrimSuffix(inner, ")"), ", ") {
		parts := strings.Fields(f)
		if len(parts) < 2 {
			return "", false
		}
		name, typ, null := parts[0], parts[1], len(parts) == 3 && parts[2] == "null"
		et, ok := engineScalars[engine][typ]
		if !ok {
			return "", false
		}
		switch engine {
		case "pyarrow", "pandas":
			et = strings.TrimSuffix(et, "[pyarrow]")
			if !null {
				et += " not null"
			}
			fields = append(fields, name+": "+et)
		case "polars":
			fields = append(fields, "'"+name+"': "+et)
		case "spark":
			fields = append(fields, name+":"+et)
		case "duckdb":
			fields = append(fields, name+" "+et)
		}
	}
	switch engine {
	case "pyarrow":
		return "list<element: struct<" + strings.Join(fields, ", ") + "> not null>", true
	case "pandas":
		return "list<element: struct<" + strings.Join(fields, ", ") + "> not null>[pyarrow]", true
	case "polars":
		return "List(Struct({" + strings.Join(fields, ", ") + "}))", true
	case "duckdb":
		return "STRUCT(" + strings.Join(fields, ", ") + ")[]", true
	default:
		return "array<struct<" + strings.Join(fields, ",") + ">>", true
	}
}

// engineList is how an engine names a list of a scalar of its type et
// whose elements are never null.
func engineList(engine, et string) string {
	switch engine {
	case "pyarrow":
		return "list<element: " + et + " not null>"
	case "pandas":
		return "list<element: " + strings.TrimSuffix(et, "[pyarrow]") + " not null>[pyarrow]"
	case "polars":
		return "List(" + et + ")"
	case "duckdb":
		return et + "[]"
	}
	return "array<" + et + ">"
}

// needPyEngines returns a Python interpreter that imports pyspark,
// pyarrow, pandas and polars: $KSLEUTH_PYTHON, else the virtualenv .ci/run
// installs under the user's cache dir. It skips loudly when there is
// none, and fails in CI.
func needPyEngines(t *testing.T) string {
	t.Helper()
	var cands []string
	if p := os.Getenv("KSLEUTH_PYTHON"); p != "" {
		cands = append(cands, p)
	}
	if c, err := os.UserCacheDir(); err == nil {
		cands = append(cands, filepath.Join(c, "ksleuth-ci", "pyenv", "bin", "python"))
	}
	for _, p := range cands {
		if exec.Command(p, "-c", "import pyspark, pyarrow, pandas, polars").Run() == nil {
			if _, err := exec.LookPath("java"); err == nil {
				return p
			}
		}
	}
	msg := "pyspark, pyarrow, pandas and polars are not available (run .ci/run, or make a virtualenv with them and set KSLEUTH_PYTHON to its python; Spark also needs java)"
	if os.Getenv("CI") != "" || os.Getenv("KSLEUTH_REQUIRE_PYENGINES") != "" {
		t.Fatal(msg)
	}
	t.Skip("SKIPPING THE PYTHON ENGINE TEST: " + msg)
	return ""
}

func runPython(t *testing.T, python, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(python, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python %s: %v\n%s", strings.Join(args, " "), err, lastLines(stderr.String(), 40))
	}
	return stdout.Bytes()
}

func lastLines(s string, n int) string {
	ls := strings.Split(s, "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

// The probe record: a producer id above 2^53 (a float64 cannot hold it),
// a millisecond timestamp later than the sample's, a null key, an empty
// value and a header with a null value. A second batch of the producer
// skips sequences: its finding puts the producer id in the nullable
// anomalies.producer_id.
const (
	probeTopic = "probe"
	probePID   = int64(1)<<53 + 1
	probeTS    = int64(1800000000123)
)

func writeProbeDir(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	part := filepath.Join(root, probeTopic+"-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	b := segtest.Batch{Magic: 2, BaseOffset: 0, FirstTimestamp: probeTS, AutoDeltas: true,
		Producer: &segtest.Producer{ID: probePID, Epoch: 3, BaseSequence: 0},
		Records: []segtest.Record{
			{Key: nil, Value: []byte{}, Headers: []segtest.Header{{Key: "h", Value: []byte("x")}, {Key: "n", Value: nil}}},
			{Key: []byte("k"), Value: []byte("v")},
		}}
	gap := segtest.Batch{Magic: 2, BaseOffset: 2, FirstTimestamp: probeTS - 1, AutoDeltas: true,
		Producer: &segtest.Producer{ID: probePID, Epoch: 3, BaseSequence: 7},
		Records:  []segtest.Record{{Key: []byte("g"), Value: []byte("g")}}}
	if err := os.WriteFile(filepath.Join(part, "00000000000000000000.log"), append(b.Encode(), gap.Encode()...), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

type engineLine struct {
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

// tableColumns describes every table of a scan output dir with the
// Parquet schema ksleuth wrote, and its row count.
func tableColumns(t *testing.T, out string) (map[string][]export.Column, map[string]int64) {
	t.Helper()
	cols, rows := map[string][]export.Column{}, map[string]int64{}
	files, _ := filepath.Glob(filepath.Join(out, "*.parquet"))
	parts, _ := filepath.Glob(filepath.Join(out, tableRecords, "*.parquet"))
	for _, f := range append(files, parts...) {
		name := strings.TrimSuffix(filepath.Base(f), ".parquet")
		if strings.HasPrefix(name, "part-") {
			name = "records"
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

// TestTablesInEngines reads every table of `scan --records --payload`
// with pyarrow, pandas, polars and Spark and holds each column to its
// documented type and nullability, every int64 and timestamp column's
// extremes to the same values in every engine (a producer id above 2^53
// and a millisecond timestamp included), and the headers list of structs
// to what was written. It also renders the type table of docs/tables.md.
func TestTablesInEngines(t *testing.T) {
	python := needPyEngines(t)
	out := filepath.Join(t.TempDir(), "out")
	mustScan(t, "scan", "--records", "--payload", "--progress", "never", "--out", out,
		generatedDir, writeProbeDir(t))
	cols, rows := tableColumns(t, out)
	if len(cols) < 9 || rows["records"] == 0 {
		t.Fatalf("scan wrote too little: %v", rows)
	}
	raw := runPython(t, python, "", filepath.Join("testdata", "engines", "tables.py"), out, probeTopic, "0")

	seen := map[string]engineLine{}          // engine|table|column
	values := map[string]map[string]string{} // table|column|what -> engine -> value
	headers := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l engineLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		switch l.Kind {
		case "column":
			seen[l.Engine+"|"+l.Table+"|"+l.Column] = l
		case "value":
			k := l.Table + "|" + l.Column + "|" + l.What
			if values[k] == nil {
				values[k] = map[string]string{}
			}
			var v string
			if err := json.Unmarshal(l.Value, &v); err != nil {
				t.Fatal(err)
			}
			values[k][l.Engine] = v
		case "headers":
			headers[l.Engine] = string(l.Value)
		}
	}
	usedTypes := map[string]bool{}
	for table, cs := range cols {
		for _, engine := range append(pyEngines, "pandas-default") {
			n := 0
			for _, c := range cs {
				l, ok := seen[engine+"|"+table+"|"+c.Name]
				if !ok {
					t.Errorf("%s: %s.%s not read", engine, table, c.Name)
					continue
				}
				n++
				if l.Rows != rows[table] {
					t.Errorf("%s: %s has %d rows, ksleuth wrote %d", engine, table, l.Rows, rows[table])
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
				usedTypes[c.Type] = true
				if want, ok := engineType(engine, c.Type); !ok || l.Type != want {
					t.Errorf("%s: %s.%s (%s) reads as %q, want %q", engine, table, c.Name, c.Type, l.Type, want)
				}
			}
			if extra := countPrefix(seen, engine+"|"+table+"|") - n; extra != 0 {
				t.Errorf("%s: %s has %d columns ksleuth did not write", engine, table, extra)
			}
		}
	}
	var keys []string
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ref, ok := values[k]["pyarrow"]
		for _, e := range append(pyEngines, "pandas-default") {
			if v := values[k][e]; !ok || v != ref {
				t.Errorf("%s: %s reads %q, pyarrow %q", k, e, v, ref)
			}
		}
	}
	// anomalies.producer_id holds nulls beside the probe's sequence gap:
	// the column pandas read as float64 before the footer named it Int64.
	for _, k := range []string{"records|producer_id|max", "batches|producer_id|max", "producers|producer_id|max", "anomalies|producer_id|max"} {
		for _, e := range append(pyEngines, "pandas-default") {
			if got := values[k][e]; got != fmt.Sprint(probePID) {
				t.Errorf("%s: %s = %q, want the probe's %d", e, k, got, probePID)
			}
		}
	}
	if l := seen["pandas-default|anomalies|producer_id"]; l.Nulls == 0 {
		t.Errorf("anomalies.producer_id holds no null: the probe does not test pandas' nullable integers")
	}
	if got := values["records|timestamp|max"]["polars"]; got != fmt.Sprint(probeTS) {
		t.Errorf("records max timestamp = %q ms, want %d", got, probeTS)
	}
	for _, e := range pyEngines {
		if got, want := headers[e], `[["h", "78"], ["n", null]]`; got != want {
			t.Errorf("%s: probe headers %s, want %s", e, got, want)
		}
	}
	checkEngineTypeDoc(t, usedTypes)
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

func countPrefix(m map[string]engineLine, p string) int {
	n := 0
	for k := range m {
		if strings.HasPrefix(k, p) {
			n++
		}
	}
	return n
}

// checkEngineTypeDoc holds the engine type table in docs/tables.md to
// engineType (-update rewrites it).
func checkEngineTypeDoc(t *testing.T, used map[string]bool) {
	t.Helper()
	var types []string
	for ty := range used {
		types = append(types, ty)
	}
	sort.Strings(types)
	var b strings.Builder
	b.WriteString("| documented type | pyarrow | pandas (`dtype_backend=\"pyarrow\"`) | polars | Spark | DuckDB |\n|---|---|---|---|---|---|\n")
	for _, ty := range types {
		fmt.Fprintf(&b, "| %s |", ty)
		for _, e := range append(pyEngines, "duckdb") {
			et, _ := engineType(e, ty)
			fmt.Fprintf(&b, " `%s` |", et)
		}
		b.WriteString("\n")
	}
	const begin, end = "<!-- engine-types:begin (generated by TestTablesInEngines) -->\n", "<!-- engine-types:end -->"
	path := filepath.Join("..", "..", "..", "docs", "tables.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s has no engine-types block", path)
	}
	got := string(doc[i+len(begin) : j])
	if got == b.String() {
		return
	}
	if *update {
		doc = append(append(append([]byte{}, doc[:i+len(begin)]...), b.String()...), doc[j:]...)
		if err := os.WriteFile(path, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the engine type table is stale (go test ./cmd/ksleuth/enginetest -run TestTablesInEngines -update):\n%s", path, b.String())
}

// TestDuplicatesSQLSpark runs analysis/sql/duplicates.sql in Spark SQL
// (pyspark, local[2]) over the records tables of three sharded scans and
// compares its groups, members, classes and reference copies with
// `ksleuth dups --from-tables` on the same shards, with default
// fingerprints and with --ignore-header.
func TestDuplicatesSQLSpark(t *testing.T) {
	python := needPyEngines(t)
	shards := dupShards(t)
	variants := [][]string{nil, {"--ignore-header", "trace-id"}}
	args := []string{filepath.Join("testdata", "spark_groups.py"), "duplicates.sql"}
	var wants [][]string
	for i, opts := range variants {
		dirs := scanShards(t, shards, opts...)
		want := dupsMemberLines(t, dirs)
		if len(want) == 0 {
			t.Fatalf("%v: ksleuth found no duplicate groups to compare", opts)
		}
		wants = append(wants, want)
		if i > 0 {
			args = append(args, "--")
		}
		for _, d := range dirs {
			args = append(args, filepath.Join(d, tableRecords))
		}
	}
	got := strings.Split(strings.TrimSpace(string(runPython(t, python, filepath.Join("..", "..", "..", "analysis", "sql"), args...))), "\n--\n")
	if len(got) != len(variants) {
		t.Fatalf("Spark printed %d result sets, want %d", len(got), len(variants))
	}
	for i, opts := range variants {
		g := strings.Split(got[i], "\n")
		if strings.Join(g, "\n") != strings.Join(wants[i], "\n") {
			t.Errorf("%v: duplicates.sql on Spark differs from ksleuth (%d vs %d rows):\n%s", opts, len(g), len(wants[i]), firstDiff(wants[i], g))
		}
		t.Logf("%v: %d member rows identical", opts, len(g))
	}
}

// TestTablesPyarrowThirdParty reads every table of `scan --records
// --payload` over the third-party corpus (records of up to several MB
// among them) with pyarrow, row group by row group, and checks the row
// counts against ksleuth's and that no column statistic holds more than a
// short value.
func TestTablesPyarrowThirdParty(t *testing.T) {
	python := needPyEngines(t)
	corpus := filepath.Join("..", "..", "..", "..", "shared", "corpus", "thirdparty")
	ents, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatalf("the third-party corpus is missing: %v", err)
	}
	args := []string{"scan", "--records", "--payload", "--progress", "never", "--out", filepath.Join(t.TempDir(), "out")}
	for _, e := range ents {
		if e.IsDir() {
			args = append(args, filepath.Join(corpus, e.Name()))
		}
	}
	out := args[6]
	mustScan(t, args...)
	_, rows := tableColumns(t, out)
	parts := map[string]int64{}
	var total int64
	for _, l := range bytes.Split(bytes.TrimSpace(runPython(t, python, "", filepath.Join("testdata", "engines", "read_all.py"), out)), []byte("\n")) {
		var f struct {
			File         string `json:"file"`
			Rows         int64  `json:"rows"`
			MaxStatBytes int    `json:"max_stat_bytes"`
		}
		if err := json.Unmarshal(l, &f); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if f.MaxStatBytes > 1024 {
			t.Errorf("%s: a column statistic of %d bytes", f.File, f.MaxStatBytes)
		}
		name := strings.TrimSuffix(f.File, ".parquet")
		if strings.HasPrefix(f.File, tableRecords+string(filepath.Separator)) {
			name = "records"
		}
		parts[name] += f.Rows
		total++
	}
	for name, n := range rows {
		if parts[name] != n {
			t.Errorf("%s: pyarrow read %d rows, ksleuth wrote %d", name, parts[name], n)
		}
	}
	if rows["records"] == 0 || total < 10 {
		t.Fatalf("too little read: %d files, %v", total, rows)
	}
	t.Logf("pyarrow read %d files, %d records", total, parts["records"])
}

// TestTablesInDuckDB reads every table of `scan --records --payload` with
// DuckDB and holds each column to its documented type, the row counts to
// ksleuth's, and the columns documented as never null to no nulls.
func TestTablesInDuckDB(t *testing.T) {
	node, nodeModules := needDuckDB(t)
	out := filepath.Join(t.TempDir(), "out")
	mustScan(t, "scan", "--records", "--payload", "--progress", "never", "--out", out,
		generatedDir, writeProbeDir(t))
	cols, rows := tableColumns(t, out)
	seen := map[string]engineLine{}
	for _, l := range runNode(t, node, nodeModules, "", filepath.Join("testdata", "engines", "duckdb_tables.cjs"), out) {
		var e engineLine
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		seen[e.Table+"|"+e.Column] = e
	}
	n := 0
	for table, cs := range cols {
		for _, c := range cs {
			l, ok := seen[table+"|"+c.Name]
			if !ok {
				t.Errorf("duckdb: %s.%s not read", table, c.Name)
				continue
			}
			n++
			// DuckDB quotes the field names that are keywords (key, value).
			if want, _ := engineType("duckdb", c.Type); strings.ReplaceAll(l.Type, `"`, "") != want {
				t.Errorf("duckdb: %s.%s (%s) reads as %q, want %q", table, c.Name, c.Type, l.Type, want)
			}
			if l.Rows != rows[table] {
				t.Errorf("duckdb: %s has %d rows, ksleuth wrote %d", table, l.Rows, rows[table])
			}
			if !c.Nullable && l.Nulls != 0 {
				t.Errorf("duckdb: %s.%s is documented not null but has %d nulls", table, c.Name, l.Nulls)
			}
		}
	}
	if n != len(seen) {
		t.Errorf("duckdb read %d columns, ksleuth wrote %d", len(seen), n)
	}
	sample := filepath.Join(t.TempDir(), "sample")
	mustScan(t, "scan", "--records", "--payload", "--progress", "never", "--out", sample, generatedDir)
	checkTableExamples(t, node, nodeModules, sample)
}

// checkTableExamples holds the example row under each table's column list
// in docs/tables.md to what DuckDB reads from the sample's scan: the first
// row of each file table, and the lowest record of the records dataset
// (-update writes them).
func checkTableExamples(t *testing.T, node, nodeModules, out string) {
	t.Helper()
	path := filepath.Join("..", "..", "..", "docs", "tables.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	lines := runNode(t, node, nodeModules, "", filepath.Join("testdata", "engines", "duckdb_examples.cjs"), out)
	if len(lines) < 8 {
		t.Fatalf("only %d example rows", len(lines))
	}
	stale := false
	for _, l := range lines {
		var ex struct {
			Table string          `json:"table"`
			Row   json.RawMessage `json:"row"`
		}
		if err := json.Unmarshal([]byte(l), &ex); err != nil {
			t.Fatal(err)
		}
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, ex.Row, "", "  "); err != nil {
			t.Fatal(err)
		}
		// The sample's source as the README's commands name it.
		row := strings.ReplaceAll(pretty.String(), `"../../../testdata/`, `"testdata/`)
		begin := "<!-- example:" + ex.Table + " (generated by TestTablesInDuckDB) -->\n"
		const end = "<!-- example:end -->\n"
		block := begin + "An example row (the first of `scan testdata/logdirs/generated --records --payload`, as DuckDB's `to_json` prints it):\n\n```json\n" + row + "\n```\n" + end
		if i := strings.Index(text, begin); i >= 0 {
			j := strings.Index(text[i:], end)
			if j < 0 {
				t.Fatalf("%s: example block of %s is not closed", path, ex.Table)
			}
			if text[i:i+j+len(end)] != block {
				stale = true
				text = text[:i] + block + text[i+j+len(end):]
			}
			continue
		}
		// Not there yet: it goes after the section's column list.
		sec := strings.Index(text, "\n## "+ex.Table+"\n")
		if sec < 0 {
			t.Errorf("%s has no section %s", path, ex.Table)
			continue
		}
		k := strings.Index(text[sec:], "\n|")
		m := strings.Index(text[sec+k:], "\n\n")
		if k < 0 || m < 0 {
			t.Fatalf("%s: section %s has no column list", path, ex.Table)
		}
		at := sec + k + m + 2
		stale = true
		text = text[:at] + block + "\n" + text[at:]
	}
	if !stale {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the example rows are stale or missing (go test ./cmd/ksleuth/enginetest -run TestTablesInDuckDB -update)", path)
}
