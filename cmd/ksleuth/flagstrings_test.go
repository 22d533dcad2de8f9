package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// flagInString matches a string that names a command-line flag.
var flagInString = regexp.MustCompile("(^|[\\s(\"`])--[a-z][a-z-]+")

// TestAnalysisNamesNoFlags keeps the command line out of the analysis and
// its outputs: their strings name what an option means, and cmd maps that
// to its flags. The packages listed have been cleaned; add others as they
// are.
func TestAnalysisNamesNoFlags(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"analysis/records", "analysis/report/dump", "analysis/report/records", "analysis/report/payloadenc"} {
		files, err := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && flagInString.MatchString(lit.Value) {
					t.Errorf("%s: %s names a flag", fset.Position(lit.Pos()), lit.Value)
				}
				return true
			})
		}
	}
}
