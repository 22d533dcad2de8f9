package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/cmd/ksleuth/internal/clitest"
)

// The text outputs lead with what needs action and count the rest (#44):
// these tests hold the length of the default output on inputs where
// almost everything is intact, and the place of the losses in it.

// lines counts the lines of out.
func lines(out string) int { return strings.Count(out, "\n") }

// TestVerifyLeadsWithLosses: on a real log dir whose two lost partitions
// sorted among 148 copies used to print near the end, verify prints them
// within its first 20 lines.
func TestVerifyLeadsWithLosses(t *testing.T) {
	t.Parallel()
	in := filepath.Join(corpusDir, "rjmfernandes__flink-on-prem")
	if _, err := os.Stat(in); err != nil {
		t.Skipf("%s is not present", in)
	}
	out, errOut, code := runCLI(t, "verify", "--progress", "never", in)
	if code != exitFindings {
		t.Fatalf("exit %d, want %d: %s", code, exitFindings, errOut)
	}
	head := strings.Join(strings.SplitAfterN(out, "\n", 21)[:20], "")
	for _, p := range []string{"customers-0: LOST ", "products-0: LOST "} {
		if !strings.Contains(head, p) {
			t.Errorf("%q is not within the first 20 lines:\n%s", p, head)
		}
	}
	if n := strings.Count(out, ": intact"); n != 0 {
		t.Errorf("%d intact copies listed without --all:\n%s", n, out)
	}
	all, _, _ := runCLI(t, "verify", "--progress", "never", "--all", in)
	if n := strings.Count(all, ": intact"); n != 146 {
		t.Errorf("--all lists %d intact copies, want 146", n)
	}
}

// emptyCluster writes three brokers' log dirs: each a copy of the sample
// with 50 empty __consumer_offsets partitions beside it, 150 empty
// partition copies in all; broker 2's codecs-0 lost the tail of its
// first segment.
func emptyCluster(t *testing.T) []string {
	t.Helper()
	var dirs []string
	for b := range 3 {
		dir := copyDir(t, sampleDir)
		props := filepath.Join(dir, "meta.properties")
		data, err := os.ReadFile(props)
		if err != nil {
			t.Fatal(err)
		}
		data = bytes.Replace(data, []byte("broker.id=0"), fmt.Appendf(nil, "broker.id=%d", b), 1)
		if err := os.WriteFile(props, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for p := range 50 {
			pd := filepath.Join(dir, fmt.Sprintf("__consumer_offsets-%d", p))
			if err := os.Mkdir(pd, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"00000000000000000000.log", "00000000000000000000.index", "00000000000000000000.timeindex"} {
				if err := os.WriteFile(filepath.Join(pd, f), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		if b == 2 {
			seg := filepath.Join(dir, "codecs-0", "00000000000000000000.log")
			st, err := os.Stat(seg)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(seg, st.Size()-37); err != nil {
				t.Fatal(err)
			}
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

// TestLeadOnEmptyCluster: a cluster copy of mostly empty partitions
// prints what broke and a count of the rest.
func TestLeadOnEmptyCluster(t *testing.T) {
	t.Parallel()
	dirs := emptyCluster(t)
	out, errOut, code := runCLI(t, append([]string{"verify", "--progress", "never"}, dirs...)...)
	if code != exitFindings {
		t.Fatalf("verify: exit %d, want %d: %s", code, exitFindings, errOut)
	}
	// Several brokers' copies: the verdict across them leads, then the
	// copy that needs action.
	if n := lines(out); n > 40 || !strings.HasPrefix(out, "partitions across brokers:\n  codecs-0: intact across 3 copies") ||
		!strings.Contains(out, "\n1 partition copy that needs action:\n") ||
		!strings.Contains(out, "176 partition copies intact, 150 of them empty") {
		t.Errorf("verify: %d lines, want at most 40, the loss first and the intact copies counted:\n%s", n, out)
	}
	all, _, _ := runCLI(t, append([]string{"verify", "--progress", "never", "--all"}, dirs...)...)
	if strings.Count(all, ": intact: ") != 176 || strings.Index(all, "__consumer_offsets-2: ") > strings.Index(all, "__consumer_offsets-10: ") {
		t.Errorf("verify --all: intact copies not all listed, or not in partition order:\n%s", all)
	}
	out, errOut, code = runCLI(t, append([]string{"replicas", "--progress", "never"}, dirs...)...)
	if code != exitOK {
		t.Fatalf("replicas: exit %d: %s", code, errOut)
	}
	if n := lines(out); n > 60 || !strings.HasPrefix(out, "codecs-0: 3 copies") || strings.Contains(out, "txn-0: 3 copies") ||
		!strings.Contains(out, "8 partitions in sync on every copy") {
		t.Errorf("replicas: %d lines, want at most 60, codecs-0 first and the rest counted:\n%s", n, out)
	}
	all, _, _ = runCLI(t, append([]string{"replicas", "--progress", "never", "--all"}, dirs...)...)
	if !strings.Contains(all, "txn-0: 3 copies") {
		t.Errorf("replicas --all: partitions not all listed:\n%s", all)
	}
}

// manyPartitions writes a log dir of n partitions of one batch each.
func manyPartitions(t *testing.T, n int) string { t.Helper(); return clitest.ManyPartitions(t, n) }

// TestLeadOnManyPartitions: 5,000 intact partitions are a count in
// verify, and a roll-up by topic in scan.
func TestLeadOnManyPartitions(t *testing.T) {
	t.Parallel()
	dir := manyPartitions(t, 5000)
	out, errOut, code := runCLI(t, "verify", "--progress", "never", dir)
	if code != exitOK {
		t.Fatalf("verify: exit %d: %s", code, errOut)
	}
	if n := lines(out); n > 20 || !strings.Contains(out, "5000 partition copies intact") {
		t.Errorf("verify: %d lines, want at most 20:\n%s", n, out)
	}
	out, errOut, code = runCLI(t, "scan", "--progress", "never", "--out", t.TempDir(), dir)
	if code != exitOK {
		t.Fatalf("scan: exit %d: %s", code, errOut)
	}
	if n := lines(out); n > 60 || !strings.Contains(out, "5000 partitions by topic") || !strings.Contains(out, "\nt6 ") {
		t.Errorf("scan: %d lines, want at most 60, rolled up by topic:\n%s", n, out)
	}
}

// TestTopicMatchingNothing: a --topic that keeps no partition is a usage
// error, not a clean run of "0 findings".
func TestTopicMatchingNothing(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"verify", "replicas", "producers"} {
		out, errOut, code := runCLI(t, cmd, "--progress", "never", "--topic", "^nothing$", sampleDir)
		if code != exitUsage || !strings.Contains(errOut, `no partition matches --topic "^nothing$"`) {
			t.Errorf("%s: exit %d, want %d; stdout %q, stderr %q", cmd, code, exitUsage, out, errOut)
		}
	}
}
