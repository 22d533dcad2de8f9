// Package lint holds tests that read the module's own source and fail on
// code that breaks a rule of its layering. It has no code of its own.
package lint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/finding"
)

// The rules of the vocabulary of findings (analysis/finding):
//
//   - analysis.AnomalyRow values are built by the constructors of package
//     finding only, never as a composite literal elsewhere;
//   - a kind or severity is never spelled as a string literal outside
//     package finding: not assigned to a Kind or Severity, compared with
//     one, nor passed where one is expected; nor is one made by converting
//     a string, so every kind comes from a constant;
//   - every kind any package can emit is in finding.Kinds.
//
// Package segment cannot import package finding: it names its kinds with
// its own exported constants, which are held to finding.Kinds here.
// Package snapshot names no finding kinds: finding.FromState gives its
// errors theirs.

const vocabModule = "github.com/ksleuth/ksleuth"

const (
	vocabFindingPkg  = vocabModule + "/analysis/finding"
	vocabAnalysisPkg = vocabModule + "/analysis"
	vocabSegmentPkg  = vocabModule + "/segment"
)

// vocabPackage is one package of the module, its non-test files parsed
// and type-checked.
type vocabPackage struct {
	path  string
	files []*ast.File
	info  *types.Info
	pkg   *types.Package
}

var vocabLoaded struct {
	once sync.Once
	fset *token.FileSet
	pkgs []*vocabPackage
	err  error
}

// vocabLoad parses and type-checks every package of the module (its
// non-test files, as the build selects them), with the dependencies read
// from the export data `go list -export` leaves in the build cache.
func vocabLoad(t *testing.T) (*token.FileSet, []*vocabPackage) {
	t.Helper()
	l := &vocabLoaded
	l.once.Do(func() { l.fset, l.pkgs, l.err = vocabLoadModule() })
	if l.err != nil {
		t.Fatal(l.err)
	}
	return l.fset, l.pkgs
}

type vocabListed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	Module     *struct{ Path string }
}

func vocabLoadModule() (*token.FileSet, []*vocabPackage, error) {
	cmd := exec.Command("go", "list", "-deps", "-export", "-json=ImportPath,Dir,GoFiles,Export,Module", vocabModule+"/...")
	cmd.Dir = vocabRoot()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go list: %v: %s", err, stderr.Bytes())
	}
	exports := map[string]string{}
	var mine []vocabListed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p vocabListed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, nil, err
		}
		exports[p.ImportPath] = p.Export
		if p.Module != nil && p.Module.Path == vocabModule {
			mine = append(mine, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	var pkgs []*vocabPackage
	for _, p := range mine {
		vp := &vocabPackage{path: p.ImportPath, info: &types.Info{
			Types: map[ast.Expr]types.TypeAndValue{},
			Defs:  map[*ast.Ident]types.Object{},
			Uses:  map[*ast.Ident]types.Object{},
		}}
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, nil, err
			}
			vp.files = append(vp.files, f)
		}
		conf := types.Config{Importer: imp}
		vp.pkg, err = conf.Check(p.ImportPath, fset, vp.files, vp.info)
		if err != nil {
			return nil, nil, fmt.Errorf("type-checking %s: %v", p.ImportPath, err)
		}
		pkgs = append(pkgs, vp)
	}
	if len(pkgs) == 0 {
		return nil, nil, fmt.Errorf("go list found no package of %s", vocabModule)
	}
	return fset, pkgs, nil
}

// vocabRoot is the module's root: the directory of go.mod above this one.
func vocabRoot() string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// vocabPos is a position as the module names it, from its root.
func vocabPos(fset *token.FileSet, pos token.Pos) string {
	p := fset.Position(pos)
	if rel, err := filepath.Rel(vocabRoot(), p.Filename); err == nil {
		p.Filename = filepath.ToSlash(rel)
	}
	return p.String()
}

// vocabIsNamed reports whether t is the named type pkg.name.
func vocabIsNamed(t types.Type, pkg, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

// vocabIsWord reports whether t is the type of a finding kind or
// severity (finding.Kind and finding.Severity are aliases of these).
func vocabIsWord(t types.Type) bool {
	return t != nil && (vocabIsNamed(t, vocabAnalysisPkg, "FindingKind") || vocabIsNamed(t, vocabAnalysisPkg, "Severity"))
}

// vocabAnomalyLiterals finds the composite literals of analysis.AnomalyRow
// in p, elided ones inside a slice or map of them included.
func vocabAnomalyLiterals(fset *token.FileSet, p *vocabPackage) []string {
	var bad []string
	for _, f := range p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CompositeLit); ok && vocabIsNamed(p.info.Types[c].Type, vocabAnalysisPkg, "AnomalyRow") {
				bad = append(bad, fmt.Sprintf("%s: analysis.AnomalyRow literal: build it with package finding", vocabPos(fset, c.Pos())))
			}
			return true
		})
	}
	return bad
}

// vocabSegmentWord reports whether e is a kind or severity package
// segment names: a call of its KindOf, or of a Kind or Severity method
// of one of its types.
func vocabSegmentWord(p *vocabPackage, e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	var id *ast.Ident
	switch fn := ast.Unparen(call.Fun).(type) {
	case *ast.SelectorExpr:
		id = fn.Sel
	case *ast.Ident:
		id = fn
	default:
		return false
	}
	obj, ok := p.info.Uses[id].(*types.Func)
	if !ok || obj.Pkg() == nil || obj.Pkg().Path() != vocabSegmentPkg {
		return false
	}
	return obj.Name() == "KindOf" || obj.Name() == "Kind" || obj.Name() == "Severity"
}

// vocabLiteralWords finds, in p, string literals used as a finding kind
// or severity, and kinds or severities made by converting a string.
func vocabLiteralWords(fset *token.FileSet, p *vocabPackage) []string {
	var bad []string
	for _, f := range p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				// An untyped constant takes the type its use gives it:
				// a Kind field, a comparison with a Severity, a
				// parameter of type finding.Kind, a case of a switch on
				// one.
				if n.Kind == token.STRING && vocabIsWord(p.info.Types[n].Type) {
					bad = append(bad, fmt.Sprintf("%s: %s used as a finding kind or severity: use the constant of package finding", vocabPos(fset, n.Pos()), n.Value))
				}
			case *ast.CallExpr:
				if tv := p.info.Types[n.Fun]; tv.IsType() && vocabIsWord(tv.Type) && len(n.Args) == 1 && !vocabIsWord(p.info.Types[n.Args[0]].Type) {
					bad = append(bad, fmt.Sprintf("%s: a finding kind or severity made from a string: use the constant of package finding", vocabPos(fset, n.Pos())))
				}
			case *ast.BinaryExpr:
				if n.Op != token.EQL && n.Op != token.NEQ {
					break
				}
				for _, pair := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
					if lit, ok := ast.Unparen(pair[0]).(*ast.BasicLit); ok && lit.Kind == token.STRING && vocabSegmentWord(p, pair[1]) {
						bad = append(bad, fmt.Sprintf("%s: %s compared with a kind or severity of package segment: use its constant", vocabPos(fset, lit.Pos()), lit.Value))
					}
				}
			}
			return true
		})
	}
	return bad
}

// TestVocabNoAnomalyLiterals: outside package finding, no code builds an
// AnomalyRow field by field; the constructors there say what each field
// holds, so every command reports the same finding the same way.
func TestVocabNoAnomalyLiterals(t *testing.T) {
	fset, pkgs := vocabLoad(t)
	for _, p := range pkgs {
		if p.path == vocabFindingPkg {
			continue
		}
		for _, b := range vocabAnomalyLiterals(fset, p) {
			t.Error(b)
		}
	}
}

// TestVocabNoLiteralKinds: outside package finding, no kind or severity
// is spelled as a string: a misspelt one would compile and be reported,
// under a kind no document explains.
func TestVocabNoLiteralKinds(t *testing.T) {
	fset, pkgs := vocabLoad(t)
	for _, p := range pkgs {
		if p.path == vocabFindingPkg {
			continue
		}
		for _, b := range vocabLiteralWords(fset, p) {
			t.Error(b)
		}
	}
}

// vocabSegmentConsts is the values of the exported string constants of
// package segment whose names start with prefix.
func vocabSegmentConsts(t *testing.T, pkgs []*vocabPackage, prefix string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range pkgs {
		if p.path != vocabSegmentPkg {
			continue
		}
		for _, name := range p.pkg.Scope().Names() {
			c, ok := p.pkg.Scope().Lookup(name).(*types.Const)
			if ok && c.Exported() && strings.HasPrefix(name, prefix) && c.Val().Kind() == constant.String {
				out[name] = constant.StringVal(c.Val())
			}
		}
	}
	return out
}

// TestVocabEveryKindListed: every kind a package can emit is in
// finding.Kinds, which docs/findings.md is generated from. A kind is a
// constant of type finding.Kind (the other tests forbid any other way to
// make one) or, from the segment reader, a Kind constant of package
// segment; the reader's severities are finding's too.
func TestVocabEveryKindListed(t *testing.T) {
	_, pkgs := vocabLoad(t)
	listed := map[finding.Kind]bool{}
	for _, k := range finding.Kinds {
		listed[k.Kind] = true
	}
	seen := 0
	for _, p := range pkgs {
		for id, obj := range p.info.Defs {
			c, ok := obj.(*types.Const)
			if !ok || !vocabIsNamed(c.Type(), vocabAnalysisPkg, "FindingKind") {
				continue
			}
			seen++
			if k := finding.Kind(constant.StringVal(c.Val())); !listed[k] {
				t.Errorf("%s.%s = %q is not in finding.Kinds", p.path, id.Name, k)
			}
		}
	}
	if seen < len(finding.Kinds) {
		t.Errorf("found %d constants of type finding.Kind, fewer than the %d kinds listed: the test no longer sees them", seen, len(finding.Kinds))
	}
	kinds := vocabSegmentConsts(t, pkgs, "Kind")
	if len(kinds) == 0 {
		t.Fatal("package segment exports no Kind constants")
	}
	for name, v := range kinds {
		if !listed[finding.Kind(v)] {
			t.Errorf("segment.%s = %q is not in finding.Kinds", name, v)
		}
	}
	for name, v := range vocabSegmentConsts(t, pkgs, "Severity") {
		if !slices.Contains(finding.Severities, finding.Severity(v)) {
			t.Errorf("segment.%s = %q is not a severity of package finding", name, v)
		}
	}
	// The reader's kinds are its constants only: its functions that name
	// a kind or severity return no literal.
	for _, p := range pkgs {
		if p.path != vocabSegmentPkg {
			continue
		}
		for _, f := range p.files {
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Body == nil || (fn.Name.Name != "Kind" && fn.Name.Name != "KindOf" && fn.Name.Name != "Severity") {
					continue
				}
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					if r, ok := n.(*ast.ReturnStmt); ok {
						for _, e := range r.Results {
							if lit, ok := ast.Unparen(e).(*ast.BasicLit); ok {
								t.Errorf("segment.%s returns %s: name it with a constant", fn.Name.Name, lit.Value)
							}
						}
					}
					return true
				})
			}
		}
	}
}

// vocabDirFuncs are the names the partition dir of a path went by before
// analysis.PartitionDir was the one answer.
var vocabDirFuncs = []string{"dirOf", "DirOf", "partKeyOf", "partitionDir", "PartitionDir"}

// TestVocabOnePartitionDir: the partition dir of a path is computed by
// analysis.PartitionDir only. The copies it replaced disagreed at the
// root of an input: "." in most packages, "" in two.
func TestVocabOnePartitionDir(t *testing.T) {
	fset, pkgs := vocabLoad(t)
	for _, p := range pkgs {
		for id, obj := range p.info.Defs {
			if obj == nil || !slices.Contains(vocabDirFuncs, id.Name) {
				continue
			}
			if _, isFunc := obj.Type().Underlying().(*types.Signature); !isFunc {
				continue
			}
			if p.path == vocabAnalysisPkg && id.Name == "PartitionDir" {
				continue
			}
			t.Errorf("%s: %s computes a partition dir: use analysis.PartitionDir", vocabPos(fset, id.Pos()), id.Name)
		}
	}
}
