package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestOpenTxnGeneratedText: a partition whose every batch belongs to one
// transaction that never ends (segtest.RealisticOpenTxn): producers
// leads with it and names the command that aborts it, and exits 3 with
// --fail-on-findings. What the engine finds of it is tested in
// analysis/pipeline.
func TestOpenTxnGeneratedText(t *testing.T) {
	in := filepath.Join(t.TempDir(), "logs")
	part := filepath.Join(in, "orders-0")
	if err := os.MkdirAll(part, 0o755); err != nil {
		t.Fatal(err)
	}
	seg := segtest.RealisticOpenTxn(segtest.CodecNone, 64<<10, 5)
	if err := os.WriteFile(filepath.Join(part, segtest.SegmentFileName(0)), seg, 0o644); err != nil {
		t.Fatal(err)
	}
	text, _, code := runCLI(t, "producers", "--fail-on-findings", "--progress", "never", in)
	if code != exitFindings {
		t.Errorf("producers: exit %d, want %d (a hanging-transaction warning)", code, exitFindings)
	}
	if !strings.HasPrefix(text, "OPEN TRANSACTIONS: 1 at the end of the input, 1 not known to be in progress") ||
		!strings.Contains(text, "abort --topic orders --partition 0 --producer-id 7000 --producer-epoch 0") {
		t.Errorf("text:\n%s", text)
	}
}
