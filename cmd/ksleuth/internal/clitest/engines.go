package clitest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// NeedDuckDB returns node and the node_modules dir holding
// @duckdb/node-api. It skips the test, loudly, when they are missing, and
// fails it in CI (.ci/run sets KSLEUTH_REQUIRE_DUCKDB).
func NeedDuckDB(t testing.TB) (node, nodeModules string) {
	t.Helper()
	nodeModules, ok := duckDBNodePath()
	node, err := exec.LookPath("node")
	if !ok || err != nil {
		msg := "DuckDB is not available: need node and @duckdb/node-api (run .ci/run, or npm install @duckdb/node-api in a dir and set KSLEUTH_DUCKDB_NODE to it)"
		if os.Getenv("KSLEUTH_REQUIRE_DUCKDB") != "" {
			t.Fatal(msg)
		}
		t.Skip("SKIPPING THE DUCKDB TEST: " + msg)
	}
	return node, nodeModules
}

// RunNode runs a DuckDB script with node in dir ("" for the test's own)
// and returns its output lines.
func RunNode(t testing.TB, node, nodeModules, dir string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(node, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodeModules)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.Split(strings.TrimSpace(stdout.String()), "\n")
}

// duckDBNodePath finds the @duckdb/node-api package: $KSLEUTH_DUCKDB_NODE
// (a dir holding node_modules), else the cache dir .ci/run installs it
// into.
func duckDBNodePath() (string, bool) {
	var dirs []string
	if d := os.Getenv("KSLEUTH_DUCKDB_NODE"); d != "" {
		dirs = append(dirs, d)
	}
	if c, err := os.UserCacheDir(); err == nil {
		dirs = append(dirs, filepath.Join(c, "ksleuth-ci", "duckdb-node"))
	}
	for _, d := range dirs {
		nm := filepath.Join(d, "node_modules")
		if _, err := os.Stat(filepath.Join(nm, "@duckdb", "node-api", "package.json")); err == nil {
			return nm, true
		}
	}
	return "", false
}

// FirstDiff says where two listings first differ.
func FirstDiff(want, got []string) string {
	for i := range max(len(want), len(got)) {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, g, w)
		}
	}
	return "(equal)"
}

// DupShards writes the generator's duplicate scenarios and splits their
// partition dirs into three shards of different inputs; every topic
// whose records land on several partitions (clicks) spans all three.
func DupShards(t testing.TB) [3][]string {
	t.Helper()
	dir := t.TempDir()
	if _, err := segtest.GenerateDupScenarios(dir, 1); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var shards [3][]string
	for i, e := range ents {
		shards[i%3] = append(shards[i%3], filepath.Join(dir, e.Name()))
	}
	for i, s := range shards {
		if len(s) == 0 {
			t.Fatalf("shard %d is empty", i)
		}
	}
	return shards
}
