package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONLines: --json is JSON lines on every command with its default
// flags, each object with a "type", and JSON keys are snake_case like the
// tables' columns. TestGolden checks the same of every --json golden.
func TestJSONLines(t *testing.T) {
	t.Parallel()
	seg := filepath.Join(sampleDir, "codecs-0", "00000000000000000000.log")
	cases := [][]string{
		{"dump", "--json", "--records", seg},
		{"verify", "--json", sampleDir},
		{"scan", "--json", sampleDir, "--out", filepath.Join(t.TempDir(), "o")},
		{"dups", "--json", sampleDir},
		{"producers", "--json", sampleDir},
		{"replicas", "--json", sampleDir, secondBroker(t)}, // two in-sync copies
		{"report", "--json", sampleDir, "--html", filepath.Join(t.TempDir(), "r.html")},
	}
	for _, args := range cases {
		out, errOut, code := runCLI(t, args...)
		if code != exitOK {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
			continue
		}
		checkJSONLines(t, args, out)
	}
}

// checkJSONLines fails t unless out is JSON lines, one object a line, each
// with a non-empty "type", and only snake_case keys at the top level.
func checkJSONLines(t *testing.T, args []string, out string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Errorf("%v: no output", args)
		return
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Errorf("%v: line %d is not a JSON object: %v: %.80s", args, i+1, err, l)
			return
		}
		if typ, ok := m["type"].(string); !ok || typ == "" {
			t.Errorf("%v: line %d has no type: %.80s", args, i+1, l)
			return
		}
		for k := range m {
			if strings.ToLower(k) != k || strings.Contains(k, "-") {
				t.Errorf("%v: line %d: key %q is not snake_case", args, i+1, k)
				return
			}
		}
	}
}
