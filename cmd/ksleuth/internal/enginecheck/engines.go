// Package enginecheck holds what the engine suites under
// cmd/ksleuth/enginetest share: how each engine presents the documented
// column types, finding and running the engines, the probe log dir, and
// reading a scan's tables and duplicate groups back for comparison. The
// suites are one package per engine so that Spark's, Python's and
// DuckDB's minutes each count against a timeout of their own.
package enginecheck

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The paths below are relative to a suite's dir, one level under
// cmd/ksleuth/enginetest, where go test runs its tests.
var (
	// Root is the repository's root.
	Root = filepath.Join("..", "..", "..", "..")
	// GeneratedDir is the generated sample log dir.
	GeneratedDir = filepath.Join(Root, "testdata", "logdirs", "generated")
	// SQLDir holds analysis/sql's queries and their engine scripts.
	SQLDir = filepath.Join(Root, "analysis", "sql")
	// TablesDoc is docs/tables.md, which the suites keep current.
	TablesDoc = filepath.Join(Root, "docs", "tables.md")
	// ThirdParty is the shared third-party corpus beside the repository.
	ThirdParty = filepath.Join(Root, "..", "shared", "corpus", "thirdparty")
)

// Script is the path of an engine script the suites share.
func Script(name string) string { return filepath.Join("..", "testdata", "engines", name) }

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

// EngineType is how an engine presents a documented type: a scalar, or
// "list of struct(name type[ null], ...)" (lists of non-null structs).
func EngineType(engine, doc string) (string, bool) {
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

// NeedPython returns a Python interpreter that imports every module
// given (and java on the PATH when withJava, for Spark):
// $KSLEUTH_PYTHON, else the virtualenv .ci/run installs under the user's
// cache dir. It skips loudly when there is none, and fails in CI.
func NeedPython(t testing.TB, withJava bool, modules ...string) string {
	t.Helper()
	var cands []string
	if p := os.Getenv("KSLEUTH_PYTHON"); p != "" {
		cands = append(cands, p)
	}
	if c, err := os.UserCacheDir(); err == nil {
		cands = append(cands, filepath.Join(c, "ksleuth-ci", "pyenv", "bin", "python"))
	}
	_, javaErr := exec.LookPath("java")
	for _, p := range cands {
		if exec.Command(p, "-c", "import "+strings.Join(modules, ", ")).Run() == nil && (!withJava || javaErr == nil) {
			return p
		}
	}
	msg := strings.Join(modules, ", ") + " are not available (run .ci/run, or make a virtualenv with them and set KSLEUTH_PYTHON to its python"
	if withJava {
		msg += "; Spark also needs java"
	}
	msg += ")"
	if os.Getenv("CI") != "" || os.Getenv("KSLEUTH_REQUIRE_PYENGINES") != "" {
		t.Fatal(msg)
	}
	t.Skip("SKIPPING THE PYTHON ENGINE TEST: " + msg)
	return ""
}

// RunPython runs python with args in dir ("" for the test's own) and
// returns its stdout; it fails the test with the end of stderr.
func RunPython(t testing.TB, python, dir string, args ...string) []byte {
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
