package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestRecordsVerifyGradeCleanStop: a log dir whose one partition's active
// segment ends in a torn batch. Truth: crashed (no .kafka_cleanshutdown),
// verify and records grade the tear a warning, a torn tail; stopped
// cleanly with the recovery point past the tear, both grade it an error,
// bytes lost after the stop, and records --fail-on-findings exits 3 as
// verify does.
func TestRecordsVerifyGradeCleanStop(t *testing.T) {
	t.Parallel()
	logDir := t.TempDir()
	dir := filepath.Join(logDir, "t-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var data []byte
	for i := range 3 {
		b := segtest.Batch{Magic: 2, BaseOffset: int64(5 * i), FirstTimestamp: 1700000000000, AutoDeltas: true}
		for j := range 5 {
			b.Records = append(b.Records, segtest.Record{Value: []byte{byte('a' + j)}})
		}
		data = append(data, b.Encode()...)
	}
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000000.log"), data[:len(data)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	grades := func() (verify, records string, vcode, rcode int) {
		out, _, vcode := runCLI(t, "verify", logDir)
		_, errOut, rcode := runCLI(t, "records", "--fail-on-findings", logDir)
		return unwrap(out), unwrap(errOut), vcode, rcode
	}
	v, r, vcode, rcode := grades()
	for _, out := range []string{v, r} {
		if !strings.Contains(out, "warning truncated-batch") || strings.Contains(out, "error truncated-batch") ||
			!strings.Contains(out, "a torn tail") {
			t.Errorf("crashed: want a warning, a torn tail:\n%s", out)
		}
	}
	if vcode != rcode {
		t.Errorf("crashed: verify exits %d, records %d", vcode, rcode)
	}
	for name, body := range map[string]string{".kafka_cleanshutdown": "", "recovery-point-offset-checkpoint": "0\n1\nt 0 15\n"} {
		if err := os.WriteFile(filepath.Join(logDir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, r, vcode, rcode = grades()
	for _, out := range []string{v, r} {
		if !strings.Contains(out, "error truncated-batch") || strings.Contains(out, "warning truncated-batch") ||
			!strings.Contains(out, "stopped cleanly") || !strings.Contains(out, "recovery point 15 is past the tear") {
			t.Errorf("stopped cleanly: want an error, lost after the stop:\n%s", out)
		}
	}
	if vcode != exitFindings || rcode != exitFindings {
		t.Errorf("stopped cleanly: verify exits %d, records %d, want %d", vcode, rcode, exitFindings)
	}
}
