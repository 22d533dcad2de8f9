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

// TestBundleNamesAndWindow: --redact-names writes the names map outside
// the bundle and --check needs it; the flags go together; --since and
// --until are parsed as everywhere else and leave segments out.
func TestBundleNamesAndWindow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, secret, names := filepath.Join(dir, "b.tar.zst"), filepath.Join(dir, "secret"), filepath.Join(dir, "names.json")
	_, stderr, code := runCLI(t, "bundle", sampleDir, "--out", out, "--redact", "--secret-file", secret, "--redact-names", "--names-map", names)
	if code != exitOK || !strings.Contains(stderr, "wrote the names map to "+names+": 7 topics") {
		t.Fatalf("bundle --redact-names: exit %d: %s", code, stderr)
	}
	if _, stderr, code = runCLI(t, "bundle", "--check", out, sampleDir); code != exitUsage || !strings.Contains(stderr, "--names-map") {
		t.Errorf("check without the names map: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := runCLI(t, "bundle", "--check", out, sampleDir, "--names-map", names)
	if code != exitOK || !strings.Contains(stdout, "tells the same story") {
		t.Errorf("check with the names map: exit %d: %s%s", code, stdout, stderr)
	}
	for _, args := range [][]string{
		{"--redact-names", "--names-map", filepath.Join(dir, "n2.json")},
		{"--redact", "--secret-file", secret, "--redact-names"},
		{"--since", "yesterday"},
		{"--since", "2023-11-15T12:00:00Z", "--until", "2023-11-15T11:00:00Z"},
	} {
		args = append([]string{"bundle", sampleDir, "--out", filepath.Join(dir, "x.tar.zst")}, args...)
		if _, stderr, code := runCLI(t, args...); code != exitUsage {
			t.Errorf("%q: exit %d: %s", args, code, stderr)
		}
	}
	win := filepath.Join(dir, "w.tar.zst")
	if _, stderr, code = runCLI(t, "bundle", sampleDir, "--out", win, "--since", "2023-11-15T11:26:41Z"); code != exitOK {
		t.Fatalf("bundle --since: exit %d: %s", code, stderr)
	}
	stdout, _, code = runCLI(t, "bundle", "--check", win, sampleDir)
	if code != exitFindings || !strings.Contains(stdout, "- verdict generated/codecs-0 codecs-0: intact") {
		t.Errorf("a bundle of a time window against the whole sample: exit %d: %s", code, stdout)
	}
}
