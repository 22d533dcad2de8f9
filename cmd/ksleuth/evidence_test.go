package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// Evidence is read-only: every input file's bytes and metadata are the
// same after each command, no file appears beside them, and the output
// may not go inside an input.

// fileState is what must not change about one path of the evidence.
type fileState struct {
	sum   string
	size  int64
	mode  fs.FileMode
	mtime int64
	ctime int64 // changes on any write, chmod, chown or link count change
	nlink uint64
}

func (s fileState) String() string {
	return fmt.Sprintf("sha256 %.12s size %d mode %v mtime %d ctime %d nlink %d", s.sum, s.size, s.mode, s.mtime, s.ctime, s.nlink)
}

// evidenceState records every path under root (the root itself included).
func evidenceState(t *testing.T, root string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		st := fileState{size: fi.Size(), mode: fi.Mode(), mtime: fi.ModTime().UnixNano()}
		st.ctime, st.nlink = statCtimeNlink(fi)
		if fi.Mode().IsRegular() {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			h := sha256.New()
			_, err = io.Copy(h, f)
			f.Close()
			if err != nil {
				return err
			}
			st.sum = hex.EncodeToString(h.Sum(nil))
		}
		if fi.IsDir() {
			st.size = 0 // a dir's size is a file-system detail
		}
		out[p] = st
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func compareEvidence(t *testing.T, what string, before, after map[string]fileState) {
	t.Helper()
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			t.Errorf("%s: %s disappeared", what, p)
		case a != b:
			t.Errorf("%s: %s changed:\n  before %v\n  after  %v", what, p, b, a)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s: new file %s in the evidence", what, p)
		}
	}
}

// evidenceTree generates a log dir with its state files, and archives of
// it, under a fresh dir; it returns the log dir and the archives.
func evidenceTree(t *testing.T) (root, logDir string, archives []string) {
	t.Helper()
	root = t.TempDir()
	logDir = filepath.Join(root, "broker-1")
	m, err := segtest.GenerateLogDir(logDir, 7, segtest.GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := segtest.WriteState(logDir, m, segtest.StateOptions{IndexIntervalBytes: 512}); err != nil {
		t.Fatal(err)
	}
	arch := filepath.Join(root, "archives")
	if err := os.Mkdir(arch, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, z := range map[string]func(io.Writer) io.WriteCloser{
		"broker-1.tar": nil,
		"broker-1.tgz": func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) },
		"broker-1.tar.zst": func(w io.Writer) io.WriteCloser {
			zw, _ := zstd.NewWriter(w)
			return zw
		},
	} {
		p := filepath.Join(arch, name)
		makeArchive(t, logDir, p, z)
		archives = append(archives, p)
	}
	sort.Strings(archives)
	return root, logDir, archives
}

// readOnlyTree makes every dir 0555 and file 0444 under root, and returns
// a func that makes them writable again (t.TempDir's cleanup needs it).
func readOnlyTree(t *testing.T, root string) {
	t.Helper()
	var dirs []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p)
		} else {
			os.Chmod(p, 0o444)
		}
		return nil
	})
	for _, d := range dirs {
		os.Chmod(d, 0o555)
	}
	t.Cleanup(func() {
		for _, d := range dirs {
			os.Chmod(d, 0o755)
		}
	})
}

// allInputFiles lists the regular files under dir, for dump.
func allInputFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.HasSuffix(p, "manifest.json") {
			out = append(out, p)
		}
		return err
	})
	return out
}

func TestEvidenceReadOnly(t *testing.T) {
	t.Parallel()
	root, logDir, archives := evidenceTree(t)
	readOnlyTree(t, root)
	before := evidenceState(t, root)
	outRoot := t.TempDir()
	n := 0
	out := func() string { n++; return filepath.Join(outRoot, fmt.Sprint("out", n)) }
	type command struct {
		name string
		args []string
		ok   []int
	}
	cmds := []command{
		{"scan dir", []string{"scan", logDir, "--out", out(), "--payload"}, []int{exitOK}},
		{"scan dir jobs 1", []string{"scan", logDir, "--out", out(), "--records", "--jobs", "1"}, []int{exitOK}},
		{"verify dir", []string{"verify", logDir}, []int{exitOK}},
		{"verify json", []string{"verify", "--json", root}, []int{exitOK, exitFindings}},
		{"dump all", append([]string{"dump", "--records", "--payload"}, allInputFiles(t, logDir)...), []int{exitOK}},
		{"dump json", append([]string{"dump", "--json", "--records"}, allInputFiles(t, logDir)...), []int{exitOK}},
		{"dups dir", []string{"dups", logDir}, []int{exitOK, exitFindings}},
		{"dups json", []string{"dups", "--json", logDir}, []int{exitOK, exitFindings}},
		{"producers", []string{"producers", logDir}, []int{exitOK, exitFindings}},
	}
	for _, a := range archives {
		cmds = append(cmds,
			command{"scan " + filepath.Base(a), []string{"scan", a, "--out", out(), "--records"}, []int{exitOK}},
			command{"dups " + filepath.Base(a), []string{"dups", a}, []int{exitOK, exitFindings}},
		)
	}
	cmds = append(cmds, command{"scan all inputs at once", append([]string{"scan", logDir, "--out", out()}, archives...), []int{exitOK}})
	for _, c := range cmds {
		stdout, stderr, code := runCLI(t, c.args...)
		okCode := false
		for _, k := range c.ok {
			okCode = okCode || code == k
		}
		if !okCode {
			if strings.Contains(stderr, "unknown command") {
				t.Logf("%s: command not available yet", c.name)
				continue
			}
			t.Errorf("%s: exit %d\n%s\n%.2000s", c.name, code, stderr, stdout)
		}
		compareEvidence(t, c.name, before, evidenceState(t, root))
	}

	// An --out inside an input root, given directly, through "..", or
	// through a symlink that points into the input, is refused and never
	// created.
	link := filepath.Join(outRoot, "link-to-input")
	if err := os.Symlink(logDir, link); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{
		logDir,
		filepath.Join(logDir, "out"),
		filepath.Join(logDir, "codecs-0", "out"),
		filepath.Join(outRoot, "..", filepath.Base(root), "broker-1", "x"),
		filepath.Join(link, "out"),
		filepath.Dir(archives[0]), // the directory holding an archive input
	} {
		in := logDir
		if o == filepath.Dir(archives[0]) {
			in = archives[0]
		}
		if _, stderr, code := runCLI(t, "scan", in, "--out", o); code != exitUsage {
			t.Errorf("--out %s (input %s): exit %d, want %d (%s)", o, in, code, exitUsage, stderr)
		}
	}
	compareEvidence(t, "refused --out", before, evidenceState(t, root))
}

// TestEvidenceReadOnlyUnprivileged runs the binary as an unprivileged user
// over a read-only tree: the kernel then refuses any write to the
// evidence (tests run as root, which the permission bits do not stop),
// so a write attempt would surface as an error, and the state check
// shows none happened.
func TestEvidenceReadOnlyUnprivileged(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("needs root to switch to an unprivileged user")
	}
	bin := ksleuthBinary(t)
	root, logDir, archives := evidenceTree(t)
	openPath(t, root)
	readOnlyTree(t, root)
	before := evidenceState(t, root)
	outRoot := t.TempDir()
	openPath(t, outRoot)
	os.Chmod(outRoot, 0o777)
	for i, args := range [][]string{
		{"scan", logDir, archives[0], archives[2], "--out", filepath.Join(outRoot, "o1"), "--records"},
		{"verify", logDir},
		{"dump", filepath.Join(logDir, "txn-0", "00000000000000000000.log")},
		{"dups", logDir},
	} {
		cmd := exec.Command(bin, args...)
		asNobody(t, cmd)
		outb, err := cmd.CombinedOutput()
		code := cmd.ProcessState.ExitCode()
		if strings.Contains(string(outb), "unknown command") {
			continue
		}
		if code != exitOK && code != exitFindings || err != nil && code < 0 {
			t.Errorf("%d %v as nobody: exit %d, %v\n%.2000s", i, args[0], code, err, outb)
		}
		if strings.Contains(string(outb), "permission denied") {
			t.Errorf("%v as nobody: a permission error:\n%.2000s", args[0], outb)
		}
		compareEvidence(t, args[0]+" as nobody", before, evidenceState(t, root))
	}
}

// openPath lets other users reach dir: t.TempDir makes 0700 dirs.
func openPath(t *testing.T, dir string) {
	for d := dir; d != "/" && d != "." && strings.HasPrefix(d, os.TempDir()); d = filepath.Dir(d) {
		if d == os.TempDir() {
			break
		}
		os.Chmod(d, 0o755)
	}
}

var buildOnce struct {
	sync.Once
	path string
	err  error
	out  []byte
}

// ksleuthBinary builds cmd/ksleuth once per test run.
func ksleuthBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ksleuth-bin-")
		if err != nil {
			buildOnce.err = err
			return
		}
		os.Chmod(dir, 0o755)
		buildOnce.path = filepath.Join(dir, "ksleuth")
		if runtime.GOOS == "windows" {
			buildOnce.path += ".exe"
		}
		cmd := exec.Command("go", "build", "-o", buildOnce.path, ".")
		buildOnce.out, buildOnce.err = cmd.CombinedOutput()
	})
	if buildOnce.err != nil {
		t.Fatalf("go build: %v\n%s", buildOnce.err, buildOnce.out)
	}
	return buildOnce.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	removePerfRoot()
	if buildOnce.path != "" {
		os.RemoveAll(filepath.Dir(buildOnce.path))
	}
	os.Exit(code)
}
