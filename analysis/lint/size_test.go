// Package lint holds the module's guard tests: checks over the source tree
// itself that keep the code in the shape the team agreed on. It has no
// non-test code.
package lint

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	// sizeMaxFuncLines is how long a non-test function may grow: past it
	// a function does several things that read better as named steps.
	sizeMaxFuncLines = 150
	// sizeMaxLineChars is how wide a non-test line may be before it counts
	// as long; a long line hides a composite literal or an expression that
	// reads better one field, or one named value, per line.
	sizeMaxLineChars = 160
	// sizeMaxLongLines is how many long lines the whole module tolerates:
	// a few URLs, format strings and signatures break worse than they read.
	sizeMaxLongLines = 10
)

// sizeModuleRoot is the module's directory, seen from this package's.
const sizeModuleRoot = "../.."

// sizeSourceFile is one non-test, non-generated Go file of the module.
type sizeSourceFile struct {
	rel  string // path from the module root, with slashes
	data []byte
	fset *token.FileSet
	file *ast.File
}

// sizeSourceFiles parses every non-test Go file of the module, skipping
// hidden directories, testdata and generated files, whose size is not
// the team's to choose.
func sizeSourceFiles(t *testing.T) []sizeSourceFile {
	t.Helper()
	var files []sizeSourceFile
	err := filepath.WalkDir(sizeModuleRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			hidden := strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")
			if p != sizeModuleRoot && (hidden || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, data, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		rel, err := filepath.Rel(sizeModuleRoot, p)
		if err != nil {
			return err
		}
		files = append(files, sizeSourceFile{rel: filepath.ToSlash(rel), data: data, fset: fset, file: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A walk from the wrong directory would find nothing and pass.
	if len(files) < 50 {
		t.Fatalf("only %d Go files found under %s", len(files), sizeModuleRoot)
	}
	return files
}

// sizeLongFuncs lists the functions and methods of f longer than limit
// lines, from their func keyword to their closing
// brace, as "file:line: name has N lines".
func sizeLongFuncs(f sizeSourceFile, limit int) []string {
	var out []string
	for _, decl := range f.file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		start := f.fset.Position(fn.Pos())
		end := f.fset.Position(fn.End())
		if n := end.Line - start.Line + 1; n > limit {
			out = append(out, fmt.Sprintf("%s:%d: %s has %d lines", f.rel, start.Line, sizeFuncName(fn), n))
		}
	}
	return out
}

// sizeFuncName names a function as a reader finds it: Recv.Method or Func.
func sizeFuncName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
			continue
		case *ast.IndexExpr:
			typ = x.X
			continue
		case *ast.IndexListExpr:
			typ = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fn.Name.Name
		}
		return fn.Name.Name
	}
}

// sizeLongLines lists the lines of f wider than limit characters, as
// "file:line: N characters". A character is a byte here, as the issue's
// count (awk's length) measures it: a tab is one, and a non-ASCII letter
// counts its UTF-8 length, which errs on the strict side.
func sizeLongLines(f sizeSourceFile, limit int) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(f.data))
	sc.Buffer(make([]byte, 0, 64*1024), len(f.data)+1)
	for line := 1; sc.Scan(); line++ {
		if n := len(sc.Bytes()); n > limit {
			out = append(out, fmt.Sprintf("%s:%d: %d characters", f.rel, line, n))
		}
	}
	return out
}

// TestFuncLength fails on a non-test function longer than sizeMaxFuncLines.
func TestFuncLength(t *testing.T) {
	t.Parallel()
	for _, f := range sizeSourceFiles(t) {
		for _, o := range sizeLongFuncs(f, sizeMaxFuncLines) {
			t.Errorf("%s, more than %d: split it into named steps", o, sizeMaxFuncLines)
		}
	}
}

// TestLongLines fails when the module has more than sizeMaxLongLines
// non-test lines wider than sizeMaxLineChars, and lists every one of them.
func TestLongLines(t *testing.T) {
	t.Parallel()
	var long []string
	for _, f := range sizeSourceFiles(t) {
		long = append(long, sizeLongLines(f, sizeMaxLineChars)...)
	}
	if len(long) > sizeMaxLongLines {
		t.Errorf("%d non-test lines are wider than %d characters, more than %d:\n%s",
			len(long), sizeMaxLineChars, sizeMaxLongLines, strings.Join(long, "\n"))
	}
}

// TestSizeGuardsCatch checks the two measures on a source written to break
// both, so that a guard that stopped measuring would not pass silently.
func TestSizeGuardsCatch(t *testing.T) {
	t.Parallel()
	var src strings.Builder
	src.WriteString("package p\n\nfunc short() {}\n\nfunc long() {\n")
	for range sizeMaxFuncLines {
		src.WriteString("\t_ = 0\n")
	}
	src.WriteString("}\n\nvar wide = \"" + strings.Repeat("x", sizeMaxLineChars) + "\"\n")
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src.String(), 0)
	if err != nil {
		t.Fatal(err)
	}
	sf := sizeSourceFile{rel: "p.go", data: []byte(src.String()), fset: fset, file: f}
	funcs := sizeLongFuncs(sf, sizeMaxFuncLines)
	if len(funcs) != 1 || !strings.Contains(funcs[0], "p.go:5: long has 152 lines") {
		t.Errorf("long functions = %q, want only long at p.go:5 with 152 lines", funcs)
	}
	lines := sizeLongLines(sf, sizeMaxLineChars)
	if len(lines) != 1 || !strings.HasPrefix(lines[0], fmt.Sprintf("p.go:%d:", sizeMaxFuncLines+8)) {
		t.Errorf("long lines = %q, want one at line %d", lines, sizeMaxFuncLines+8)
	}
}
