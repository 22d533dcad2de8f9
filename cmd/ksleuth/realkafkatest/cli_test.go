// Package realkafkatest checks ksleuth against real Apache Kafka: what
// brokers wrote, compared with kafka-dump-log and with the ground truth
// of the scenarios of cmd/ksleuth-gen/realkafka. It runs the built
// ksleuth binary, as a user does, and is a package of its own so that
// its minutes of brokers do not add to the command package's tests.
package realkafkatest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	jsonl "github.com/ksleuth/ksleuth/analysis/report/json"
	"github.com/parquet-go/parquet-go"
)

// The exit codes of cmd/ksleuth/root.go that the checks expect.
const (
	exitOK       = 0
	exitFindings = 3
)

// tableEvents is the cluster timeline's table in a scan's --out.
const tableEvents = export.Events

// corpusDir holds real brokers' log dirs, beside the checkout.
const corpusDir = "../../../../shared/corpus/real"

// corpusSources names the log dirs of the corpus (the test skips when
// there is none).
func corpusSources(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Skipf("real corpus not available: %v", err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

var built struct {
	sync.Once
	path string
	err  error
	out  []byte
}

// ksleuthBinary builds cmd/ksleuth once per test run, the first time a
// check needs it: under -short nothing here runs, and nothing is built.
func ksleuthBinary(t *testing.T) string {
	t.Helper()
	built.Do(func() {
		dir, err := os.MkdirTemp("", "ksleuth-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "ksleuth")
		if runtime.GOOS == "windows" {
			built.path += ".exe"
		}
		built.out, built.err = exec.Command("go", "build", "-o", built.path, "github.com/ksleuth/ksleuth/cmd/ksleuth").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.path != "" {
		os.RemoveAll(filepath.Dir(built.path))
	}
	os.Exit(code)
}

// scanCmd runs ksleuth with args and returns stdout, stderr and the exit
// code.
func scanCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(ksleuthBinary(t), args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return out.String(), errb.String(), exit.ExitCode()
	case err != nil:
		t.Fatalf("ksleuth %v: %v", args, err)
	}
	return out.String(), errb.String(), 0
}

// mustScan runs ksleuth with args and fails unless it exits 0.
func mustScan(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := scanCmd(t, args...)
	if code != exitOK {
		t.Fatalf("ksleuth %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out, errs)
	}
	return out
}

// dupsJSON runs `ksleuth dups --json` and returns the groups and summary.
func dupsJSON(t *testing.T, args ...string) ([]jsonl.DupGroup, pipeline.DupSummary) {
	t.Helper()
	out := mustScan(t, append([]string{"dups", "--json", "--progress", "never"}, args...)...)
	var groups []jsonl.DupGroup
	var sum pipeline.DupSummary
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var probe struct{ Type string }
		if err := json.Unmarshal(sc.Bytes(), &probe); err != nil {
			t.Fatal(err)
		}
		switch probe.Type {
		case "group":
			var g jsonl.DupGroup
			if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
				t.Fatal(err)
			}
			groups = append(groups, g)
		case "summary":
			if err := json.Unmarshal(sc.Bytes(), &sum); err != nil {
				t.Fatal(err)
			}
		}
	}
	return groups, sum
}

// readTable reads a table: one Parquet file, or every part of a dataset
// dir in path order.
func readTable[T any](t *testing.T, table string) []T {
	t.Helper()
	parts := []string{table}
	if fi, err := os.Stat(table); err != nil {
		t.Fatal(err)
	} else if fi.IsDir() {
		parts = nil
		err := filepath.WalkDir(table, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
				parts = append(parts, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(parts)
	}
	var all []T
	for _, f := range parts {
		rows, err := parquet.ReadFile[T](f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		all = append(all, rows...)
	}
	return all
}
