package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestTermSafeHostileNames: a log dir whose partition directory and
// record header key carry terminal escapes (clear the screen, carriage
// return over the line, a C1 CSI). Truth: no command's text output holds
// a control character other than newline and tab, each shows as its
// escape, and the JSON lines still decode to the exact bytes.
func TestTermSafeHostileNames(t *testing.T) {
	topic := "pay\x1b[2J\rments\u009b31m"
	dir := filepath.Join(t.TempDir(), "logs")
	part := filepath.Join(dir, topic+"-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	seg := segtest.Batch{Magic: 2, BaseOffset: 0, AutoDeltas: true, FirstTimestamp: 1700000000000,
		Records: []segtest.Record{{Key: []byte("k"), Value: []byte("v"), Headers: []segtest.Header{{Key: "h\x1b]0;pwned\x07", Value: []byte("x")}}}}}.Encode()
	// A torn tail: a finding names the file, hence the directory.
	seg = append(seg, seg[:30]...)
	file := filepath.Join(part, segtest.SegmentFileName(0))
	if err := os.WriteFile(file, seg, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"verify", dir},
		{"dump", file, "--records"},
		{"records", dir},
		{"producers", dir},
		{"dups", dir},
	} {
		out, errOut, _ := runCLIFlat(t, args...)
		for _, s := range []string{out, errOut} {
			for _, c := range s {
				if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f || c >= 0x80 && c <= 0x9f {
					t.Errorf("%v: control character %U in the output:\n%s", args, c, s)
					break
				}
			}
		}
		if (args[0] == "verify" || args[0] == "records") && !strings.Contains(out+errOut, `pay\x1b[2J\x0dments\u009b31m-0`) {
			t.Errorf("%v does not show the directory's name escaped:\n%s%s", args, out, errOut)
		}
		if args[0] == "dump" && !strings.Contains(out, `h\x1b]0;pwned\x07`) {
			t.Errorf("dump does not show the header key escaped:\n%s", out)
		}
	}
	out, _, _ := runCLIFlat(t, "dump", file, "--records", "--json")
	found := false
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		found = found || strings.Contains(line, `\u001b]0;pwned\u0007`)
	}
	if !found {
		t.Errorf("dump --json does not carry the header key's exact bytes:\n%s", out)
	}
}
