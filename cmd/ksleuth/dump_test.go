package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

const sampleDir = "../../testdata/logdirs/generated"

// runCLI runs the real command tree in-process.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLIWith(t, defaultSettings(), args...)
}

// runCLIWith runs the command tree with settings a test has turned.
func runCLIWith(t *testing.T, set *settings, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runWith(set, args, &out, &errb)
	return out.String(), errb.String(), code
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run go test -update after checking):\n%s", path, got)
	}
}

func TestDumpGolden(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"dump_codecs.txt":        {"dump", "--payload", sampleDir + "/codecs-0/00000000000000000000.log"},
		"dump_txn.txt":           {"dump", "--records", sampleDir + "/txn-0/00000000000000000000.log"},
		"dump_legacy_v1.txt":     {"dump", "--records", sampleDir + "/legacy-v1-0/00000000000000000000.log"},
		"dump_codecs_json.txt":   {"dump", "--json", "--payload", "--payload-encoding", "base64", sampleDir + "/codecs-1/00000000000000000000.log"},
		"dump_compacted_hex.txt": {"dump", "--payload", "--payload-encoding", "hex", sampleDir + "/compacted-0/00000000000000000000.log"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			out, errOut, code := runCLI(t, args...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			golden(t, name, out)
		})
	}
}

// TestDumpDamaged: findings go to stderr with file and byte position,
// intact batches are still printed, and --fail-on-findings exits 3.
func TestDumpDamaged(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(sampleDir + "/codecs-0/00000000000000000000.log")
	if err != nil {
		t.Fatal(err)
	}
	src = append(src[:len(src):len(src)], make([]byte, 100)...) // zero tail
	src[200] ^= 0xff                                            // inside the first batch
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, src, 0o444); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLIFlat(t, "dump", path)
	if code != 0 {
		t.Fatalf("exit %d without --fail-on-findings", code)
	}
	if !strings.Contains(errOut, "finding: "+path+": error crc-mismatch at byte 0 (offset 0): segment: crc mismatch") ||
		!strings.Contains(errOut, ": note zero-tail at byte ") {
		t.Fatalf("stderr lacks the findings:\n%s", errOut)
	}
	if n := strings.Count(out, "baseOffset:"); n < 5 {
		t.Fatalf("only %d batches printed", n)
	}
	if _, _, code := runCLIFlat(t, "dump", "--fail-on-findings", path); code != exitFindings {
		t.Fatalf("--fail-on-findings: exit %d, want 3", code)
	}
	jsonOut, _, _ := runCLIFlat(t, "dump", "--json", path)
	kinds := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(jsonOut), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		if m["file"] != path {
			t.Fatalf("line without file: %s", line)
		}
		kinds[m["type"].(string)]++
		if m["type"] == "finding" && m["kind"] == "zero-tail" && m["position"].(float64) != float64(len(src)-100) {
			t.Fatalf("zero tail at %v, want %d", m["position"], len(src)-100)
		}
	}
	if kinds["finding"] != 2 || kinds["batch"] < 5 {
		t.Fatalf("JSON line types %v", kinds)
	}
}

// TestDumpTornTail: a batch cut short at the end of the file is graded as
// verify grades it at the least (a warning: a torn tail of an active
// segment), not a note that --fail-on-findings would let pass. Truth: the
// sample segment with its last 5 bytes cut off.
func TestDumpTornTail(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(sampleDir + "/codecs-0/00000000000000000000.log")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, src[:len(src)-5], 0o444); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "dump", path)
	if code != 0 || !strings.Contains(errOut, ": warning truncated-batch at byte ") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if _, _, code := runCLI(t, "dump", "--fail-on-findings", path); code != exitFindings {
		t.Fatalf("--fail-on-findings: exit %d, want 3", code)
	}
	out, _, _ := runCLI(t, "verify", "--progress", "never", path)
	if !strings.Contains(out, "warning truncated-batch") {
		t.Errorf("verify grades it otherwise:\n%s", out)
	}
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	if _, _, code := runCLI(t, "dump"); code != exitUsage {
		t.Errorf("no args: exit %d, want 2", code)
	}
	if _, _, code := runCLI(t, "dump", "--no-such-flag", "x.log"); code != exitUsage {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
	if _, _, code := runCLI(t, "dump", "--payload-encoding", "rot13", "x.log"); code != exitUsage {
		t.Errorf("bad enum: exit %d, want 2", code)
	}
	_, errOut, code := runCLI(t, "dump", filepath.Join(t.TempDir(), "00000000000000000000.log"))
	if code != exitFailed || !strings.HasPrefix(errOut, "ksleuth: ") {
		t.Errorf("missing file: exit %d, stderr %q", code, errOut)
	}
	out, _, code := runCLI(t, "version")
	if code != 0 || !strings.HasPrefix(out, "ksleuth ") {
		t.Errorf("version: %d %q", code, out)
	}
}
