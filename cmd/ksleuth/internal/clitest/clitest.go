// Package clitest runs the built ksleuth binary for the test packages
// that check it from outside (the real-broker and the table-engine
// suites), as a user runs it. They are packages of their own so that
// their minutes do not count against the command package's test timeout.
package clitest

import (
	"bufio"
	"bytes"
	"context"
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
)

// The exit codes of cmd/ksleuth/root.go that the checks expect.
const (
	ExitOK       = 0
	ExitUsage    = 2
	ExitFindings = 3
)

var built struct {
	sync.Once
	path string
	err  error
	out  []byte
}

// Binary builds cmd/ksleuth once per test binary, the first time a test
// needs it: a run whose tests all skip builds nothing.
func Binary(t testing.TB) string {
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

// Cleanup removes the built binary; a TestMain calls it after the tests.
func Cleanup() {
	if built.path != "" {
		os.RemoveAll(filepath.Dir(built.path))
	}
}

// Main is the TestMain of a package that runs the binary: it runs the
// tests, removes the binary they built and exits with their code.
func Main(m *testing.M) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

// Run runs ksleuth with args and returns stdout, stderr and the exit
// code.
func Run(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(Binary(t), args...)
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

// MustRun runs ksleuth with args and fails the test unless it exits 0.
func MustRun(t testing.TB, args ...string) string {
	t.Helper()
	out, errs, code := Run(t, args...)
	if code != ExitOK {
		t.Fatalf("ksleuth %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out, errs)
	}
	return out
}

// DupsJSON runs `ksleuth dups --json` and returns the groups and summary.
func DupsJSON(t testing.TB, args ...string) ([]jsonl.DupGroup, pipeline.DupSummary) {
	t.Helper()
	out := MustRun(t, append([]string{"dups", "--json", "--progress", "never"}, args...)...)
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

// ReadTable reads a table through analysis/export: one Parquet file, or
// every part of a dataset dir in path order.
func ReadTable[T any](t testing.TB, table string) []T {
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
		err := export.EachRow(context.Background(), f, func(r *T) error {
			all = append(all, *r)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	return all
}
