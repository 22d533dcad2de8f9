package lint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// layeringModule is the module path every package below is named under.
const layeringModule = "github.com/ksleuth/ksleuth"

// The tiers data flows through (docs/architecture.md): a package imports
// only from a lower tier, never from its own or a higher one, except the
// edges layeringSameTier names.
const (
	tierVocabulary = iota // analysis, analysis/finding, segment, snapshot: below all
	tierReading           // analysis/source, analysis/scan, analysis/topics
	tierPass              // check, dups, replicas, ... : no pass imports another
	tierRun               // analysis/pipeline, analysis/export
	tierOutput            // analysis/report/...: fed only the run's result and summary
	tierCommand           // cmd/...
)

var layeringTierNames = [...]string{"vocabulary", "reading", "pass", "run", "output", "command"}

// layeringTiers places every package of the module by its path (relative
// to the module) or the path of a dir above it; a package found in none
// fails the test, so that a new package is placed on purpose.
var layeringTiers = map[string]int{
	"analysis":         tierVocabulary, // the root package alone, not its subdirs
	"analysis/finding": tierVocabulary,
	"segment":          tierVocabulary,
	"snapshot":         tierVocabulary,

	"analysis/source": tierReading,
	"analysis/scan":   tierReading,
	"analysis/topics": tierReading,

	"analysis/brokerlog": tierPass,
	"analysis/check":     tierPass,
	"analysis/cluster":   tierPass,
	"analysis/consumers": tierPass,
	"analysis/dups":      tierPass,
	"analysis/payload":   tierPass,
	"analysis/producer":  tierPass,
	"analysis/records":   tierPass,
	"analysis/recovery":  tierPass,
	"analysis/replicas":  tierPass,

	"analysis/pipeline": tierRun,
	"analysis/export":   tierRun,
	"analysis/bundle":   tierRun,

	"analysis/report": tierOutput,

	"analysis/lint": tierCommand, // tests only: they may look at anything
	"cmd":           tierCommand,
}

// layeringStreamingPrinters are the imports of the two outputs that print
// what they read while they read it, as kafka-dump-log and kcat do: dump
// prints any Kafka file byte for byte, and records prints the records a
// selection matches. Neither waits for a run's result (there is none to
// wait for on a 1 GB segment), so they read through the reading tier, the
// records selection and the value decoder; they still import no pass that
// judges the data (check, dups, producer, ...).
var layeringStreamingPrinters = map[[2]string]bool{
	{"analysis/report", "analysis/source"}:  true,
	{"analysis/report", "analysis/topics"}:  true,
	{"analysis/report", "analysis/records"}: true,
	{"analysis/report", "analysis/payload"}: true,
}

// layeringSameTier are the imports allowed inside one tier: reading is
// source, then scan over what source opens; the run writes its tables
// through export. Imports inside the vocabulary, inside one pass, one
// output or the commands are allowed too (see layeringViolations).
var layeringSameTier = map[[2]string]bool{
	{"analysis/scan", "analysis/source"}:     true,
	{"analysis/pipeline", "analysis/export"}: true,
	// A bundle is checked by running the analysis on it and on its inputs.
	{"analysis/bundle", "analysis/pipeline"}: true,
}

// layeringKnownEdges are imports that break the rules on purpose, each
// with its reason; an entry whose import is gone fails the test, so that
// none outlives its reason. The HTML page and the dups text draw the
// duplicate runs from the detector's run builder, which reads them back
// from its spill files one at a time: a run's result cannot hold them
// all on a large input.
var layeringKnownEdges = map[[2]string]bool{
	{"analysis/report", "analysis/dups"}: true,
}

// layeringBanned are third-party imports some parts of the module must
// not have, by path prefix (relative to the module for the importer).
var layeringBanned = []struct {
	importer string
	banned   []string
	why      string
}{
	{"segment", []string{layeringModule + "/analysis", "github.com/parquet-go/", "github.com/spf13/"},
		"parsers know nothing of the analysis, the tables or the command line"},
	{"snapshot", []string{layeringModule + "/analysis", "github.com/parquet-go/", "github.com/spf13/"},
		"parsers know nothing of the analysis, the tables or the command line"},
	{"analysis", []string{"github.com/spf13/", "golang.org/x/term", "github.com/schollz/progressbar"},
		"the analysis knows nothing of flags or terminals"},
	{"cmd", []string{"github.com/parquet-go/"},
		"commands write tables only through analysis/export"},
}

// layeringPackage is what the guard needs of one package of go list.
type layeringPackage struct {
	ImportPath string
	Imports    []string // of its non-test files
}

// layeringUnit is the package's entry in layeringTiers: itself or the
// nearest dir above it that has one ("" for none). The root package
// analysis has one of its own; its subdirs are placed one by one.
func layeringUnit(rel string) string {
	for p := rel; p != "" && p != "."; {
		if _, ok := layeringTiers[p]; ok && (p != "analysis" || rel == "analysis") {
			return p
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return ""
}

// layeringHasPrefix reports whether path is dir or lies below it.
func layeringHasPrefix(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// layeringViolations returns one line per import that breaks the rules,
// and the known edges that no longer occur.
func layeringViolations(pkgs []layeringPackage) []string {
	var out []string
	used := map[[2]string]bool{}
	for _, p := range pkgs {
		rel, ok := strings.CutPrefix(p.ImportPath, layeringModule+"/")
		if !ok {
			continue
		}
		from := layeringUnit(rel)
		if from == "" {
			out = append(out, fmt.Sprintf("%s has no tier: place it in layeringTiers", rel))
			continue
		}
		for _, b := range layeringBanned {
			if !layeringHasPrefix(rel, b.importer) {
				continue
			}
			for _, imp := range p.Imports {
				for _, ban := range b.banned {
					if strings.HasPrefix(imp, ban) {
						out = append(out, fmt.Sprintf("%s imports %s: %s", rel, imp, b.why))
					}
				}
			}
		}
		for _, imp := range p.Imports {
			irel, ok := strings.CutPrefix(imp, layeringModule+"/")
			if !ok {
				continue
			}
			to := layeringUnit(irel)
			if to == "" {
				continue // reported as its own package
			}
			if msg := layeringEdge(from, to); msg != "" {
				if layeringKnownEdges[[2]string{from, to}] {
					used[[2]string{from, to}] = true
					continue
				}
				out = append(out, fmt.Sprintf("%s imports %s: %s", rel, irel, msg))
			}
		}
	}
	for e := range layeringKnownEdges {
		if !used[e] {
			out = append(out, fmt.Sprintf("known edge %s -> %s no longer occurs: remove it from layeringKnownEdges", e[0], e[1]))
		}
	}
	slices.Sort(out)
	return out
}

// layeringEdge says what is wrong with an import of unit to by unit from,
// "" when nothing is.
func layeringEdge(from, to string) string {
	tf, tt := layeringTiers[from], layeringTiers[to]
	switch {
	case from == to:
		return "" // inside one unit: a pass, an output, the commands
	case tf == tierCommand:
		return "" // commands and lint tests sit on top of everything
	case tt > tf:
		return fmt.Sprintf("a %s package imports a higher tier (%s)", layeringTierNames[tf], layeringTierNames[tt])
	case tt == tf && tf == tierVocabulary:
		return "" // segment and snapshot are kept off analysis by layeringBanned
	case tt == tf && tf == tierPass:
		return "no pass imports another: hand what both need through package analysis, or wire it in the pipeline"
	case tt == tf && !layeringSameTier[[2]string{from, to}]:
		return fmt.Sprintf("both are of tier %s: data flows only downward", layeringTierNames[tf])
	case tf == tierOutput && layeringStreamingPrinters[[2]string{from, to}]:
		return ""
	case tf == tierOutput && tt != tierRun && tt != tierVocabulary:
		return fmt.Sprintf("an output is fed only the run's result and summary, not a %s package", layeringTierNames[tt])
	}
	return ""
}

// layeringList runs go list over the module and returns its packages.
func layeringList(t *testing.T) []layeringPackage {
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("go list: %v: %s", err, ee.Stderr)
	} else if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []layeringPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p layeringPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestLayering keeps the data flowing one way, tier by tier: vocabulary,
// reading, the passes (none importing another), the run, the outputs, the
// commands; parsers know nothing of the analysis, the tables or the
// command line; the analysis nothing of flags or terminals; the commands
// write no Parquet themselves.
func TestLayering(t *testing.T) {
	t.Parallel()
	pkgs := layeringList(t)
	if len(pkgs) < 20 {
		t.Fatalf("only %d packages listed", len(pkgs))
	}
	for _, v := range layeringViolations(pkgs) {
		t.Error(v)
	}
}

// TestLayeringCatches plants one import of each kind the guard forbids
// into the module's real import graph and wants each one reported.
func TestLayeringCatches(t *testing.T) {
	t.Parallel()
	base := layeringList(t)
	m := layeringModule + "/"
	plants := []struct {
		from, to string
		want     string
	}{
		{"analysis/replicas", m + "analysis/dups", "no pass imports another"},
		{"analysis/scan", m + "analysis/topics", "both are of tier reading"},
		{"analysis/topics", m + "analysis/cluster", "imports a higher tier"},
		{"analysis/check", m + "analysis/pipeline", "imports a higher tier"},
		{"analysis", m + "analysis/scan", "imports a higher tier"},
		{"analysis/report", m + "analysis/recovery", "an output is fed only"},
		{"segment", m + "analysis", "parsers know nothing"},
		{"snapshot", "github.com/spf13/cobra", "parsers know nothing"},
		{"analysis/payload", "github.com/spf13/pflag", "nothing of flags"},
		{"cmd/ksleuth", "github.com/parquet-go/parquet-go", "only through analysis/export"},
		{"analysis/newpass", m + "analysis", "has no tier"},
	}
	for _, pl := range plants {
		pkgs := slices.Clone(base)
		found := false
		for i := range pkgs {
			if pkgs[i].ImportPath == m+pl.from {
				pkgs[i].Imports = append(slices.Clone(pkgs[i].Imports), pl.to)
				found = true
			}
		}
		if !found {
			pkgs = append(pkgs, layeringPackage{ImportPath: m + pl.from, Imports: []string{pl.to}})
		}
		hit := false
		for _, v := range layeringViolations(pkgs) {
			hit = hit || strings.HasPrefix(v, pl.from+" ") && strings.Contains(v, pl.want)
		}
		if !hit {
			t.Errorf("%s importing %s was not reported as %q", pl.from, pl.to, pl.want)
		}
	}
}
