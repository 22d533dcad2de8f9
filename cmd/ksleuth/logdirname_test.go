package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogDirNamedLikePartition: a log dir whose name parses as a
// partition dir (logs-100000000, kafka-logs-1) and that holds a file
// ksleuth does not know beside its partition dirs is a log dir: the file
// is skipped, and no empty partition copy is made of the dir itself.
func TestLogDirNamedLikePartition(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"logs-100000000", "kafka-logs-1"} {
		dir := filepath.Join(t.TempDir(), name)
		if err := os.CopyFS(filepath.Join(dir, "codecs-0"), os.DirFS(filepath.Join(sampleDir, "codecs-0"))); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".done"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		out, _, code := runCLIFlat(t, "verify", dir)
		if code != 0 || strings.Contains(out, "LOST") || !strings.Contains(out, "1 partition copy intact") {
			t.Errorf("%s: exit %d:\n%s", name, code, out)
		}
	}
}
