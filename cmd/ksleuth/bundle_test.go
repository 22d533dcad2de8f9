package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestBundleCommand writes a redacted bundle of the sample, checks it
// against the sample, and holds the command to the exit codes: an existing
// bundle without --force and a bundle or secret inside an input are usage
// errors, a bundle that tells another story exits 3.
func TestBundleCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, secret := filepath.Join(dir, "b.tar.zst"), filepath.Join(dir, "secret")
	stdout, stderr, code := runCLI(t, "bundle", sampleDir, "--out", out, "--redact", "--secret-file", secret, "--json")
	if code != exitOK {
		t.Fatalf("bundle: exit %d: %s", code, stderr)
	}
	var sum struct {
		Type     string `json:"type"`
		Files    int    `json:"files"`
		Redacted bool   `json:"redacted"`
		SecretID string `json:"secret_id"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil || sum.Type != "bundle" || sum.Files < 80 || !sum.Redacted || sum.SecretID == "" {
		t.Errorf("summary %q: %+v %v", stdout, sum, err)
	}
	if !strings.Contains(stderr, "wrote a new secret to "+secret) {
		t.Errorf("no word of the new secret: %q", stderr)
	}
	stdout, stderr, code = runCLI(t, "bundle", "--check", out, sampleDir)
	if code != exitOK || !strings.Contains(stdout, "tells the same story") {
		t.Errorf("check: exit %d: %s%s", code, stdout, stderr)
	}
	if _, stderr, code = runCLI(t, "bundle", sampleDir, "--out", out); code != exitUsage || !strings.Contains(stderr, "--force") {
		t.Errorf("existing bundle: exit %d: %s", code, stderr)
	}
	inside := filepath.Join(sampleDir, "b.tar.zst")
	if _, stderr, code = runCLI(t, "bundle", sampleDir, "--out", inside); code != exitUsage || !strings.Contains(stderr, "never writes") {
		t.Errorf("bundle inside the input: exit %d: %s", code, stderr)
	}
	if _, stderr, code = runCLI(t, "bundle", sampleDir, "--out", out, "--force", "--redact", "--secret-file",
		filepath.Join(sampleDir, "secret")); code != exitUsage {
		t.Errorf("secret inside the input: exit %d: %s", code, stderr)
	}
	part := filepath.Join(dir, "part.tar.zst")
	if _, stderr, code = runCLI(t, "bundle", sampleDir, "--out", part, "--topic", "^codecs$"); code != exitOK {
		t.Fatalf("bundle --topic: exit %d: %s", code, stderr)
	}
	stdout, _, code = runCLI(t, "bundle", "--check", part, sampleDir, "--json")
	if code != exitFindings || !strings.Contains(stdout, `"type":"difference"`) || !strings.Contains(stdout, `- verdict generated/txn-0 txn-0`) {
		t.Errorf("a bundle of one topic against the whole sample: exit %d: %s", code, stdout)
	}
}
