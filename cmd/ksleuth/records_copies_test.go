package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// brokerCopies is the sample as the log dirs of brokers 1, 2 and 3, each
// with its broker.id; broker 3 holds no copy of codecs-1.
func brokerCopies(t *testing.T) []string {
	t.Helper()
	var dirs []string
	for _, b := range []string{"1", "2", "3"} {
		d := copyDir(t, filepath.Join("..", "..", "testdata", "logdirs", "generated"))
		meta := filepath.Join(d, "meta.properties")
		data, err := os.ReadFile(meta)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(meta, []byte(strings.Replace(string(data), "broker.id=0", "broker.id="+b, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	if err := os.RemoveAll(filepath.Join(dirs[2], "codecs-1")); err != nil {
		t.Fatal(err)
	}
	return dirs
}

// TestRecordsNameTheCopy: records over three brokers' log dirs names the
// copy each line was read from, in text ([broker N] first, unless the
// format names it with %C) and in JSON (copy); over one log dir nothing
// is added, and copy is null.
func TestRecordsNameTheCopy(t *testing.T) {
	t.Parallel()
	dirs := brokerCopies(t)
	sel := []string{"records", "--topic", "^codecs$", "--offsets", "5..5"}
	out, errOut, code := runCLI(t, append(sel, dirs...)...)
	want := []string{"[broker 1] codecs/0@5 ", "[broker 1] codecs/1@5 ", "[broker 2] codecs/0@5 ", "[broker 2] codecs/1@5 ", "[broker 3] codecs/0@5 "}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != len(want) {
		t.Fatalf("exit %d, %d lines, want %d:\n%s%s", code, len(lines), len(want), out, errOut)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q, want it to start with %q", i, lines[i], w)
		}
	}
	out, _, _ = runCLI(t, append(append(sel, "--format", `%C|%t-%p@%o\n`), dirs...)...)
	if !strings.HasPrefix(out, "broker 1|codecs-0@5\nbroker 1|codecs-1@5\nbroker 2|") {
		t.Errorf("--format with %%C:\n%s", out)
	}
	out, _, _ = runCLI(t, append(append(sel, "--json"), dirs...)...)
	var copies []any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			Copy any `json:"copy"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		copies = append(copies, r.Copy)
	}
	if len(copies) != 5 || copies[0] != "broker 1" || copies[4] != "broker 3" {
		t.Errorf("JSON copies %v", copies)
	}
	out, _, _ = runCLI(t, append(sel, dirs[0])...)
	if !strings.HasPrefix(out, "codecs/0@5 ") || strings.Contains(out, "[broker") {
		t.Errorf("one log dir:\n%s", out)
	}
	out, _, _ = runCLI(t, append(append(sel, "--json"), dirs[0])...)
	if !strings.Contains(out, `"copy":null`) {
		t.Errorf("one log dir, JSON:\n%s", out)
	}
}

// TestRecordsMarkCRCMismatch: the records of a batch whose checksum
// fails are printed, and marked: [CRC mismatch] in text, crc_valid false
// in JSON; the records of intact batches are not.
func TestRecordsMarkCRCMismatch(t *testing.T) {
	t.Parallel()
	dir := copyDir(t, filepath.Join("..", "..", "testdata", "logdirs", "generated", "codecs-1"))
	seg := filepath.Join(dir, "00000000000000000000.log")
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	data[150] ^= 0xff // inside the first batch's records
	if err := os.WriteFile(seg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, _ := runCLI(t, "records", "--offsets", "0..30", dir)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 8 || !strings.HasPrefix(lines[0], "[CRC mismatch] codecs/1@0 ") || strings.HasPrefix(lines[len(lines)-1], "[CRC mismatch]") ||
		!strings.Contains(errOut, ": error crc-mismatch at byte 0 (offset 0): ") {
		t.Errorf("records:\n%s\nstderr:\n%s", out, errOut)
	}
	out, _, _ = runCLI(t, "records", "--json", "--offsets", "0..0", dir)
	if !strings.Contains(out, `"crc_valid":false`) {
		t.Errorf("JSON:\n%s", out)
	}
}
