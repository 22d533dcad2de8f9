package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestRecordsDumpVerifyGradeAlike: a partition dir whose rolled segment
// ends in a torn batch and whose active segment ends in one too. Truth:
// verify, records and dump give each tear the same kind and severity (an
// error in the rolled segment, a warning in the active one), and records
// --fail-on-findings exits 3 as verify does; records says which of the
// offsets asked for are not on disk. Each file given on its own is graded
// the same, by the segments beside it.
func TestRecordsDumpVerifyGradeAlike(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	seg := func(base int64, n int) []byte {
		var data []byte
		for i := range n {
			b := segtest.Batch{Magic: 2, BaseOffset: base + int64(5*i), FirstTimestamp: 1700000000000, AutoDeltas: true}
			for j := range 5 {
				b.Records = append(b.Records, segtest.Record{Value: []byte{byte('a' + j)}})
			}
			data = append(data, b.Encode()...)
		}
		return data[:len(data)-10]
	}
	rolled := filepath.Join(dir, "00000000000000000000.log")
	active := filepath.Join(dir, "00000000000000000015.log")
	os.WriteFile(rolled, seg(0, 3), 0o644)
	os.WriteFile(active, seg(15, 2), 0o644)
	want := []string{"error truncated-batch", "warning truncated-batch"}

	out, _, code := runCLI(t, "verify", dir)
	for _, w := range want {
		if !strings.Contains(out, w) || code != 3 {
			t.Errorf("verify (exit %d) does not say %q:\n%s", code, w, out)
		}
	}
	_, errOut, code := runCLI(t, "records", "--fail-on-findings", dir)
	for _, w := range want {
		if !strings.Contains(errOut, w) || code != 3 {
			t.Errorf("records (exit %d) does not say %q:\n%s", code, w, errOut)
		}
	}
	for i, f := range []string{rolled, active} {
		_, errOut, code := runCLI(t, "dump", "--fail-on-findings", f)
		errOut = unwrap(errOut)
		sev, _, _ := strings.Cut(want[i], " ")
		if w := ": " + sev + " truncated-batch at byte "; !strings.Contains(errOut, w) || code != 3 {
			t.Errorf("dump %s (exit %d) does not say %q:\n%s", filepath.Base(f), code, w, errOut)
		}
		// Given on its own, each file is judged by the segments beside
		// it in its dir, as dump judges it.
		out, _, _ := runCLI(t, "verify", f)
		if !strings.Contains(out, want[i]) || strings.Contains(out, want[1-i]) {
			t.Errorf("verify %s alone does not say %q:\n%s", filepath.Base(f), want[i], out)
		}
		_, errOut, _ = runCLI(t, "records", f)
		if !strings.Contains(errOut, want[i]) || strings.Contains(errOut, want[1-i]) {
			t.Errorf("records %s alone does not say %q:\n%s", filepath.Base(f), want[i], errOut)
		}
	}
	_, errOut, _ = runCLI(t, "records", "--offsets", "12..13", dir)
	if w := "offsets 12..13 are not on disk in t-0"; !strings.Contains(errOut, w) {
		t.Errorf("records --offsets 12..13 does not say %q:\n%s", w, errOut)
	}
}
