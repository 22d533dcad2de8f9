package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReplicasText: the sample log dir given twice is nine partitions of
// two in-sync copies each; given once there is nothing to compare.
func TestReplicasText(t *testing.T) {
	b2 := secondBroker(t)
	out, errs, code := runCLI(t, "replicas", "--progress", "never", "--all", sampleDir, b2)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "9 partitions compared, their copies besides the reference: 9 in-sync") || strings.Count(out, "broker 2 holds the same batches as broker 0") != 9 {
		t.Errorf("replicas over two copies:\n%s", out)
	}
	// Without --all, copies that agree are a count (#44).
	out, _, _ = runCLI(t, "replicas", "--progress", "never", sampleDir, b2)
	if !strings.HasPrefix(out, "9 partitions in sync on every copy") || strings.Contains(out, "holds the same batches") {
		t.Errorf("replicas over two copies, without --all:\n%s", out)
	}
	// The same dir twice is one input given twice, not two brokers.
	if _, errs, code := runCLI(t, "replicas", "--progress", "never", sampleDir, sampleDir); code != exitUsage || !strings.Contains(errs, "are the same input") {
		t.Errorf("the same dir twice: exit %d, %s", code, errs)
	}
	if _, errs, code := runCLI(t, "verify", "--progress", "never", sampleDir, filepath.Join(sampleDir, "codecs-0")); code != exitUsage || !strings.Contains(errs, "is inside the input") {
		t.Errorf("a partition dir of a dir input: exit %d, %s", code, errs)
	}
	out, _, code = runCLI(t, "replicas", "--progress", "never", sampleDir)
	if code != exitOK || !strings.Contains(out, "nothing to compare") {
		t.Errorf("replicas over one copy: exit %d\n%s", code, out)
	}
}
