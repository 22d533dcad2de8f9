package realcheck

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
)

// checkBundle makes a redacted bundle of what the brokers wrote and checks
// that verify, dups and replicas find the same in it (bundle --check
// exits 0 only then), byte positions mapped through its manifest. A
// scenario with consumer groups or transactions gets its names replaced
// too (--redact-names): the check then compares the groups' commits and
// the transactional ids through the names map, and no group id of 8
// bytes or more may be left in the bundle.
func checkBundle(t *testing.T, truth *realkafka.Truth, logDirs []string) {
	dir := t.TempDir()
	out, names := filepath.Join(dir, "bundle.tar.zst"), filepath.Join(dir, "names.json")
	args := []string{"bundle", "--out", out, "--redact", "--secret-file", filepath.Join(dir, "secret")}
	check := []string{"bundle", "--check", out}
	redactNames := len(truth.Commits) > 0 || slices.ContainsFunc(truth.Records, func(r realkafka.TruthRecord) bool { return r.Txn })
	if redactNames {
		args = append(args, "--redact-names", "--names-map", names)
		check = append(check, "--names-map", names)
	}
	if _, errs, code := scanCmd(t, append(args, logDirs...)...); code != exitOK {
		t.Fatalf("bundle: exit %d\n%s", code, errs)
	}
	got, errs, code := scanCmd(t, append(check, logDirs...)...)
	if code != exitOK || !strings.Contains(got, "tells the same story") {
		t.Errorf("bundle --check: exit %d\n%s%s", code, got, errs)
	}
	if redactNames {
		text := bundleBytes(t, out)
		for _, c := range truth.Commits {
			if len(c.Group) >= 8 && bytes.Contains(text, []byte(c.Group)) {
				t.Errorf("the bundle made with --redact-names holds the group id %q", c.Group)
				break
			}
		}
	}
}

// bundleBytes is the tar of a bundle, decompressed: __consumer_offsets'
// batches are not compressed by default, so their names are in it.
func bundleBytes(t *testing.T, path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := zstd.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
