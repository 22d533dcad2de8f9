package main

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDumpGarbageStateFiles dumps a file of every state kind holding
// garbage: the dump names the file, the line or byte and what was
// expected, exits 3 with --fail-on-findings, never calls a non-snapshot a
// snapshot, and prints no field it did not read.
func TestDumpGarbageStateFiles(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 5))
	random := make([]byte, 200)
	for i := range random {
		random[i] = byte(r.UintN(256))
	}
	random[0], random[1] = 0xff, 0xfe // not a version-1 snapshot either
	text := []byte("garbage here\nnot a kafka file\n")
	dir := t.TempDir()
	for _, tc := range []struct {
		name      string
		data      []byte
		forbidden []string // field lines the dump must not invent
	}{
		{"p-0/partition.metadata", random, []string{"topic_id:", "version:"}},
		{"p-1/partition.metadata", text, []string{"topic_id:", "version:"}},
		{"p-0/leader-epoch-checkpoint", text, []string{"version:", "count:"}},
		{"p-1/leader-epoch-checkpoint", random, []string{"version:", "count:"}},
		{"recovery-point-offset-checkpoint", text, []string{"version:", "count:"}},
		{"replication-offset-checkpoint", random, []string{"version:", "count:"}},
		{"log-start-offset-checkpoint", []byte("0\nmany\n"), []string{"count:"}},
		{"cleaner-offset-checkpoint", []byte("x 0 1\n"), []string{"version:", "count:"}},
		{"meta.properties", random, []string{"version:", "broker.id:", "node.id:"}},
		{"quorum-state", text, []string{"leaderId:", "leaderEpoch:"}},
		{".kafka_cleanshutdown", random, []string{"version:", "brokerEpoch:"}},
		{"p-0/00000000000000000042.snapshot", random, []string{"producerId:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, filepath.FromSlash(tc.name))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := runCLIFlat(t, "dump", "--fail-on-findings", path)
			if code != exitFindings {
				t.Errorf("exit %d, want %d", code, exitFindings)
			}
			for _, line := range strings.Split(out, "\n")[1:] {
				for _, f := range tc.forbidden {
					if strings.Contains(line, f) {
						t.Errorf("dump prints %q, which the file does not hold:\n%s", line, out)
					}
				}
			}
			if !strings.HasPrefix(errOut, "finding: "+path+": ") || !strings.Contains(errOut, "want") ||
				!(strings.Contains(errOut, " at line ") || strings.Contains(errOut, " at byte ")) {
				t.Errorf("finding does not name the file, the line or byte, and what was expected:\n%s", errOut)
			}
			if !strings.HasSuffix(tc.name, ".snapshot") && strings.Contains(errOut, "snapshot") {
				t.Errorf("a %s is called a snapshot:\n%s", tc.name, errOut)
			}
		})
	}
}

// TestDumpEmptyStateFiles: an empty leftover of an interrupted rewrite is a
// note; the same file under its live name is an error saying it is empty.
func TestDumpEmptyStateFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"quorum-state", "partition.metadata", "meta.properties", "00000000000000000042.snapshot"} {
		tmp := filepath.Join(dir, name+".tmp")
		live := filepath.Join(dir, name)
		for _, p := range []string{tmp, live} {
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, errOut, code := runCLIFlat(t, "dump", "--fail-on-findings", tmp)
		if code != exitOK || !strings.Contains(errOut, "empty leftover") || strings.Contains(errOut, "error") {
			t.Errorf("%s: exit %d\n%s", tmp, code, errOut)
		}
		_, errOut, code = runCLIFlat(t, "dump", "--fail-on-findings", live)
		if code != exitFindings || !strings.Contains(errOut, "empty file") || strings.Contains(errOut, "EOF") {
			t.Errorf("%s: exit %d\n%s", live, code, errOut)
		}
	}
}

// TestDumpSampleStateFiles dumps every state and index file of the sample
// log dir: each parses without a finding and prints something.
func TestDumpSampleStateFiles(t *testing.T) {
	t.Parallel()
	n := 0
	err := filepath.WalkDir(sampleDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".log") || d.Name() == "manifest.json" {
			return err
		}
		n++
		out, errOut, code := runCLI(t, "dump", "--fail-on-findings", path)
		if code != exitOK || errOut != "" {
			t.Errorf("%s: exit %d\n%s", path, code, errOut)
		}
		if lines := strings.Count(out, "\n"); lines < 2 && d.Name() != ".kafka_cleanshutdown" {
			t.Errorf("%s: nothing printed past the header:\n%s", path, out)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// 89 files in the log dir, 16 of them segments.
	if n != 73 {
		t.Errorf("dumped %d state and index files, want 73", n)
	}
}
