package main

import (
	"strings"
	"testing"
)

// TestReplicasText: the sample log dir given twice is nine partitions of
// two in-sync copies each; given once there is nothing to compare.
func TestReplicasText(t *testing.T) {
	out, errs, code := runCLI(t, "replicas", "--progress", "never", sampleDir, sampleDir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "9 partition(s) compared: 9 in-sync") || strings.Count(out, "holds the same batches as broker 0") != 9 {
		t.Errorf("replicas over two copies:\n%s", out)
	}
	out, _, code = runCLI(t, "replicas", "--progress", "never", sampleDir)
	if code != exitOK || !strings.Contains(out, "nothing to compare") {
		t.Errorf("replicas over one copy: exit %d\n%s", code, out)
	}
}
