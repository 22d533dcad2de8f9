package lint

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// cmdDir is the command line's package, seen from this one.
const cmdDir = "../../cmd/ksleuth"

// cmdMaxLines is how many non-test lines cmd/ksleuth may hold: flags to a
// Plan, sinks and an output format for every command, and no more.
const cmdMaxLines = 2000

// cmdBannedCalls are what the command line must leave to the packages
// that own the files: it neither lists, stats, hashes, renames nor
// removes one (export, the outputs and pipeline do).
var cmdBannedCalls = map[string]bool{
	"os.Stat": true, "os.Lstat": true, "os.ReadDir": true, "os.Rename": true, "os.Remove": true, "os.RemoveAll": true,
	"os.WriteFile": true, "os.Open": true, "os.OpenFile": true, "filepath.Walk": true, "filepath.WalkDir": true,
	"export.WriteFileAtomic": true, "export.HashFiles": true, "export.LockPath": true, "export.RemoveTemps": true,
}

// cmdSources reads the non-test Go files of the command's package. The
// packages below it (internal/clitest, the suites that run the built
// binary) are test infrastructure: they build inputs and read tables
// back, and belong to no command.
func cmdSources(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(cmdDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != cmdDir {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		data, err := os.ReadFile(p)
		out[p] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 5 {
		t.Fatalf("only %d files of cmd/ksleuth read", len(out))
	}
	return out
}

// TestCmdLines: cmd/ksleuth stays within cmdMaxLines non-test lines.
func TestCmdLines(t *testing.T) {
	n := 0
	for _, data := range cmdSources(t) {
		n += bytes.Count(data, []byte("\n"))
	}
	if n > cmdMaxLines {
		t.Errorf("cmd/ksleuth has %d non-test lines, more than %d: move what is not flags, sinks or output format "+
			"to the package that owns it", n, cmdMaxLines)
	}
}

// cmdFileViolations lists the banned calls and crypto imports of one
// file's source.
func cmdFileViolations(name string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return nil, err
	}
	var bad []string
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, "crypto/") {
			bad = append(bad, fset.Position(imp.Pos()).String()+": imports "+p)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && cmdBannedCalls[x.Name+"."+sel.Sel.Name] {
			bad = append(bad, fset.Position(sel.Pos()).String()+": uses "+x.Name+"."+sel.Sel.Name)
		}
		return true
	})
	return bad, nil
}

// TestCmdTouchesNoFile: the command line hashes, renames and lists no
// file itself.
func TestCmdTouchesNoFile(t *testing.T) {
	for name, src := range cmdSources(t) {
		bad, err := cmdFileViolations(name, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Error(b)
		}
	}
}

// TestCmdFileViolations: the rule finds a banned call and a hash import,
// and lets other calls through.
func TestCmdFileViolations(t *testing.T) {
	src := "package p\nimport (\n\"crypto/sha256\"\n\"os\"\n)\nvar _ = sha256.New\nfunc f() { os.Rename(\"a\", \"b\"); os.Getenv(\"X\") }\n"
	bad, err := cmdFileViolations("p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 2 || !strings.Contains(bad[0], "crypto/sha256") || !strings.Contains(bad[1], "os.Rename") {
		t.Errorf("violations %q, want the sha256 import and os.Rename", bad)
	}
}
