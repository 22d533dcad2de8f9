// Package lint holds tests that keep the layers of the module apart; it
// has no code of its own.
package lint

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const outputsModule = "github.com/ksleuth/ksleuth/"

// outputsBannedPasses are the passes an output or a command must not
// import: they read the run through the pipeline's Result and Summary,
// whose types are tier-0 ones.
var outputsBannedPasses = []string{"analysis/check", "analysis/consumers", "analysis/producers", "analysis/producer",
	"analysis/scan", "analysis/txns", "analysis/pstate"}

// outputsBannedInCmd are what cmd/ksleuth must not import besides: the
// command line turns flags into a pipeline.Plan and picks an output.
var outputsBannedInCmd = append([]string{"analysis/replicas", "analysis/topics"}, outputsBannedPasses...)

// outputsImports returns, per non-test Go file under dir (its
// subdirectories included when deep), the module packages it imports.
func outputsImports(t *testing.T, dir string, deep bool) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && !deep {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if rest, ok := strings.CutPrefix(path, outputsModule); ok {
				out[p] = append(out[p], rest)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// outputsViolations lists "file imports pkg" for each import of a banned
// package (or one below it).
func outputsViolations(files map[string][]string, banned []string) []string {
	var bad []string
	for file, imps := range files {
		for _, imp := range imps {
			for _, b := range banned {
				if imp == b || strings.HasPrefix(imp, b+"/") {
					bad = append(bad, file+" imports "+imp)
				}
			}
		}
	}
	return bad
}

// TestOutputsImportNoPass: the outputs (analysis/report/...) are fed the
// pipeline's Result and Summary only, never a pass.
func TestOutputsImportNoPass(t *testing.T) {
	files := outputsImports(t, "../report", true)
	if len(files) < 5 {
		t.Fatalf("only %d files of analysis/report read", len(files))
	}
	for _, v := range outputsViolations(files, outputsBannedPasses) {
		t.Error(v)
	}
}

// TestCmdImportsNoEngine: cmd/ksleuth turns flags into a Plan, sinks and
// an output format: it imports neither the scan nor a pass.
func TestCmdImportsNoEngine(t *testing.T) {
	files := outputsImports(t, "../../cmd/ksleuth", false)
	if len(files) < 5 {
		t.Fatalf("only %d files of cmd/ksleuth read", len(files))
	}
	for _, v := range outputsViolations(files, outputsBannedInCmd) {
		t.Error(v)
	}
}

// TestOutputsViolations: the rule finds an import it bans, and one below
// it, and lets the pipeline through.
func TestOutputsViolations(t *testing.T) {
	files := map[string][]string{"a.go": {"analysis/scan", "analysis/pipeline"}, "b.go": {"analysis/txns/sub"}}
	if got := outputsViolations(files, outputsBannedPasses); len(got) != 2 {
		t.Errorf("violations %v, want a.go's scan and b.go's txns/sub", got)
	}
}
