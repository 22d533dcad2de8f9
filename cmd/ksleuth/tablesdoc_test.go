package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/parquet-go/parquet-go"
)

// docColumn is a column as docs/tables.md documents it.
type docColumn struct {
	typ      string // int32, int64, string, bool, timestamp, binary, list of …
	nullable bool
}

// readTablesDoc reads the column tables of docs/tables.md: per section
// ("## batches"), the rows of its "| column | type | meaning |" table.
// A row may name several columns ("first_offset, last_offset") with one
// type each or one type for all; "null" after a type, or "; all null"
// at the end, marks a column that can be null.
func readTablesDoc(t *testing.T) map[string]map[string]docColumn {
	t.Helper()
	f, err := os.Open("../../docs/tables.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc := map[string]map[string]docColumn{}
	section, inTable := "", false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "## "):
			section, inTable = strings.TrimPrefix(l, "## "), false
		case l == "| column | type | meaning |":
			inTable = true
			doc[section] = map[string]docColumn{}
		case inTable && strings.HasPrefix(l, "|---"):
		case inTable && strings.HasPrefix(l, "| "):
			cells := strings.Split(l, " | ")
			if len(cells) < 3 {
				t.Fatalf("docs/tables.md:%d: a row of fewer than three cells", n)
			}
			names := strings.Split(strings.TrimPrefix(cells[0], "| "), ", ")
			types, err := parseDocTypes(cells[1], len(names))
			if err != nil {
				t.Fatalf("docs/tables.md:%d: %v", n, err)
			}
			for i, name := range names {
				if _, dup := doc[section][name]; dup {
					t.Errorf("docs/tables.md:%d: %s.%s documented twice", n, section, name)
				}
				doc[section][name] = types[i]
			}
		default:
			inTable = false
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return doc
}

func parseDocTypes(cell string, n int) ([]docColumn, error) {
	allNull := false
	if main, rest, ok := strings.Cut(cell, ";"); ok {
		if strings.TrimSpace(rest) != "all null" {
			return nil, fmt.Errorf("type %q: only \"; all null\" may follow the types", cell)
		}
		cell, allNull = main, true
	}
	var types []docColumn
	if strings.HasPrefix(cell, "list of ") {
		types = []docColumn{{typ: cell}} // one nested column, compared whole
	} else {
		for _, tok := range strings.Split(cell, ",") {
			tok = strings.TrimSpace(tok)
			switch {
			case tok == "null" && len(types) > 0:
				types[len(types)-1].nullable = true
			case strings.HasSuffix(tok, " null"):
				types = append(types, docColumn{typ: strings.TrimSuffix(tok, " null"), nullable: true})
			default:
				types = append(types, docColumn{typ: tok})
			}
		}
	}
	if len(types) == 1 && n > 1 {
		for len(types) < n {
			types = append(types, types[0])
		}
	}
	if len(types) != n {
		return nil, fmt.Errorf("%d column names but %d types in %q", n, len(types), cell)
	}
	if allNull {
		for i := range types {
			types[i].nullable = true
		}
	}
	return types, nil
}

// parquetDocType spells a Parquet column's type the way docs/tables.md
// does.
func parquetDocType(n parquet.Node) string {
	logical := ""
	if lt := n.Type().LogicalType(); lt != nil {
		logical = lt.String()
	}
	if n.Leaf() {
		switch {
		case logical == "STRING":
			return "string"
		case strings.HasPrefix(logical, "TIMESTAMP") && strings.Contains(logical, "MILLIS"):
			return "timestamp"
		}
		switch n.Type().Kind() {
		case parquet.Boolean:
			return "bool"
		case parquet.Int32:
			return "int32"
		case parquet.Int64:
			return "int64"
		case parquet.ByteArray:
			return "binary"
		}
		return n.Type().String()
	}
	if logical == "LIST" && len(n.Fields()) == 1 && len(n.Fields()[0].Fields()) == 1 {
		elem := n.Fields()[0].Fields()[0]
		return "list of " + withNull(parquetDocType(elem), elem.Optional())
	}
	var parts []string
	for _, f := range n.Fields() {
		parts = append(parts, f.Name()+" "+withNull(parquetDocType(f), f.Optional()))
	}
	return "struct(" + strings.Join(parts, ", ") + ")"
}

func withNull(typ string, optional bool) string {
	if optional {
		return typ + " null"
	}
	return typ
}

// TestTablesDoc: docs/tables.md documents every column of every table a
// scan of the sample writes (the records dataset with --payload), with
// its type and whether it can be null, and no column that is not written.
func TestTablesDoc(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	mustScan(t, "scan", sampleDir, "--out", out, "--payload", "--progress", "never")
	doc := readTablesDoc(t)
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var written []string
	for _, e := range ents {
		if e.Name() == export.Manifest {
			continue // not a table: "Checking a table set" describes it
		}
		name := strings.TrimSuffix(e.Name(), ".parquet")
		written = append(written, name)
		cols, ok := doc[name]
		if !ok {
			t.Errorf("%s: no section \"## %s\" with a column table in docs/tables.md", e.Name(), name)
			continue
		}
		file := tableParts(t, filepath.Join(out, e.Name()))[0]
		seen := map[string]bool{}
		for _, f := range openParquet(t, file).Schema().Fields() {
			seen[f.Name()] = true
			d, ok := cols[f.Name()]
			switch got := parquetDocType(f); {
			case !ok:
				t.Errorf("%s.%s (%s) is written but not in docs/tables.md", name, f.Name(), withNull(got, f.Optional()))
			case d.typ != got:
				t.Errorf("%s.%s: docs/tables.md says %s, the table has %s", name, f.Name(), d.typ, got)
			case d.nullable != f.Optional():
				t.Errorf("%s.%s: docs/tables.md says nullable %v, the table %v", name, f.Name(), d.nullable, f.Optional())
			}
		}
		for c := range cols {
			if !seen[c] {
				t.Errorf("%s.%s is in docs/tables.md but not written", name, c)
			}
		}
	}
	for section := range doc {
		if !slices.Contains(written, section) {
			t.Errorf("docs/tables.md documents %q, which scan does not write", section)
		}
	}
	if len(written) < 10 {
		t.Errorf("scan --payload wrote %d tables: %v", len(written), written)
	}
}

func TestParseDocTypes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cell string
		n    int
		want []docColumn
	}{
		{"int64, null", 2, []docColumn{{"int64", true}, {"int64", true}}},
		{"int32, string", 2, []docColumn{{"int32", false}, {"string", false}}},
		{"string null, int32 null", 2, []docColumn{{"string", true}, {"int32", true}}},
		{"string, int32; all null", 2, []docColumn{{"string", true}, {"int32", true}}},
		{"list of struct(key string, value binary null)", 1, []docColumn{{"list of struct(key string, value binary null)", false}}},
	} {
		got, err := parseDocTypes(c.cell, c.n)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("parseDocTypes(%q) = %v, %v; want %v", c.cell, got, err, c.want)
		}
	}
	if _, err := parseDocTypes("int32, int64, string", 2); err == nil {
		t.Error("three types for two columns accepted")
	}
}
