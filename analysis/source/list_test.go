//go:build linux

package source

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestFilesSpecialFiles: a FIFO named like a segment, and symlinks to
// /dev/zero, /dev/urandom and /etc/passwd, are listed as skipped with
// their reasons and never opened; a symlink inside the root to a regular
// file is listed once under the target's name.
func TestFilesSpecialFiles(t *testing.T) {
	root := filepath.Join(t.TempDir(), "logs")
	write(t, filepath.Join(root, "t-0", "00000000000000000000.log"), "seg")
	if err := syscall.Mkfifo(filepath.Join(root, "t-0", "00000000000000000100.log"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"00000000000000000200.log": "/dev/zero",
		"00000000000000000300.log": "/dev/urandom",
		"00000000000000001000.log": "/etc/passwd",
		"00000000000000002000.log": "00000000000000000000.log",
		"00000000000000003000.log": "00000000000000000100.log",
		"00000000000000004000.log": "missing",
		"sub":                      "..",
	} {
		if err := os.Symlink(target, filepath.Join(root, "t-0", name)); err != nil {
			t.Fatal(err)
		}
	}
	ins, err := Classify([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []*Entry)
	go func() {
		es, _ := ins[0].Files(Options{})
		done <- es
	}()
	var es []*Entry
	select {
	case es = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("listing hangs")
	}
	got := byPath(es)
	want := map[string]string{
		"t-0/00000000000000000000.log": "",
		"t-0/00000000000000000100.log": SkipSpecial,
		"t-0/00000000000000000200.log": SkipLinkOutside,
		"t-0/00000000000000000300.log": SkipLinkOutside,
		"t-0/00000000000000001000.log": SkipLinkOutside,
		"t-0/00000000000000002000.log": SkipLinkInside,
		"t-0/00000000000000003000.log": SkipSpecial,
		"t-0/00000000000000004000.log": SkipDangling,
		"t-0/sub":                      SkipLinkDir,
	}
	if len(es) != len(want) {
		t.Errorf("%d entries, want %d", len(es), len(want))
	}
	for p, kind := range want {
		e := got[p]
		if e == nil {
			t.Errorf("%s not listed", p)
			continue
		}
		if e.SkipKind != kind || (kind != "") != (e.Skipped != "") {
			t.Errorf("%s: kind %q (%s), want %q", p, e.SkipKind, e.Skipped, kind)
		}
		if kind != "" {
			if f, err := e.Open(); err == nil {
				f.Close()
				t.Errorf("%s: a skipped entry opened", p)
			}
		}
	}
	if e := got["t-0/00000000000000002000.log"]; !strings.Contains(e.Skipped, "t-0/00000000000000000000.log") {
		t.Errorf("inside link names its target: %s", e.Skipped)
	}
	if s := Skips(es); len(s) != len(want)-1 {
		t.Errorf("Skips: %+v", s)
	}
}

// TestOpenRefusesSwappedFIFO: a file replaced by a FIFO (or a symlink)
// after it was listed is refused at once, not waited on.
func TestOpenRefusesSwappedFIFO(t *testing.T) {
	root := t.TempDir()
	seg := filepath.Join(root, "t-0", "00000000000000000000.log")
	write(t, seg, "seg")
	write(t, filepath.Join(root, "t-0", "00000000000000000100.log"), "seg")
	ins, _ := Classify([]string{root})
	es, _ := ins[0].Files(Options{})
	if len(es) != 2 || es[0].Skipped != "" {
		t.Fatalf("entries %+v", es)
	}
	os.Remove(seg)
	if err := syscall.Mkfifo(seg, 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(root, "t-0", "00000000000000000100.log")
	os.Remove(other)
	os.Symlink("/dev/zero", other)
	done := make(chan error, 2)
	for _, e := range es {
		go func() {
			f, err := e.Open()
			if err == nil {
				f.Close()
			}
			done <- err
		}()
	}
	for range es {
		select {
		case err := <-done:
			if err == nil {
				t.Error("a swapped-in FIFO or symlink was opened")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Open waits on a FIFO")
		}
	}
}

// TestFilesLongPath: a dir whose path is longer than the system allows is
// an io-error entry for that path; the rest of the input is listed.
func TestFilesLongPath(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "ok-0", "00000000000000000000.log"), "seg")
	// Built with *at calls, one level at a time: no single path names it.
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("d", 250)
	for range 20 {
		if err := unix.Mkdirat(fd, name, 0o755); err != nil {
			t.Fatal(err)
		}
		nfd, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = nfd
	}
	ffd, err := unix.Openat(fd, "00000000000000000000.log", unix.O_CREAT|unix.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(ffd)
	unix.Close(fd)
	ins, _ := Classify([]string{root})
	es, err := ins[0].Files(Options{})
	if err != nil {
		t.Fatalf("the listing failed: %v", err)
	}
	got := byPath(es)
	if e := got["ok-0/00000000000000000000.log"]; e == nil || e.Skipped != "" || e.Err != nil {
		t.Fatalf("the readable partition is not listed: %v", es)
	}
	var ioErr *Entry
	for _, e := range es {
		if e.Err != nil {
			ioErr = e
		}
	}
	if ioErr == nil || !strings.HasSuffix(ioErr.Path, "/") || ioErr.SkipKind != SkipIOError {
		t.Fatalf("no io-error entry for the long path: %d entries", len(es))
	}
	if _, err := ioErr.Open(); err == nil {
		t.Error("an io-error entry opened")
	}
}

// TestFilesUnreadableDir: one partition dir the user cannot read is an
// io-error entry; the others are listed. Root reads every dir, so under
// root the test runs itself again as nobody (uid 65534).
func TestFilesUnreadableDir(t *testing.T) {
	if dir := os.Getenv("KSLEUTH_UNREADABLE_DIR"); dir != "" {
		unreadableDirChild(t, dir)
		return
	}
	root := t.TempDir()
	write(t, filepath.Join(root, "logs", "ok-0", "00000000000000000000.log"), "seg")
	write(t, filepath.Join(root, "logs", "locked-0", "00000000000000000000.log"), "seg")
	locked := filepath.Join(root, "logs", "locked-0")
	if os.Geteuid() != 0 {
		os.Chmod(locked, 0)
		defer os.Chmod(locked, 0o755)
		unreadableDirChild(t, filepath.Join(root, "logs"))
		return
	}
	// nobody must reach the tree and the test binary, not the dir: the
	// test's temp dirs are opened to others (the system's is already).
	for p := root; p != filepath.Clean(os.TempDir()) && p != filepath.Dir(p); p = filepath.Dir(p) {
		if st, err := os.Stat(p); err == nil && st.Mode().Perm()&0o005 != 0o005 {
			os.Chmod(p, st.Mode().Perm()|0o005)
			defer os.Chmod(p, st.Mode().Perm())
		}
	}
	exe, _ := os.Executable()
	bin := filepath.Join(root, "source.test")
	data, err := os.ReadFile(exe)
	if err != nil || os.WriteFile(bin, data, 0o755) != nil {
		t.Fatalf("copying the test binary: %v", err)
	}
	os.Chmod(locked, 0)
	cmd := exec.Command(bin, "-test.run=^TestFilesUnreadableDir$", "-test.v")
	cmd.Env = append(os.Environ(), "KSLEUTH_UNREADABLE_DIR="+filepath.Join(root, "logs"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestFilesUnreadableDir") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}

func unreadableDirChild(t *testing.T, dir string) {
	ins, err := Classify([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	es, err := ins[0].Files(Options{})
	got := byPath(es)
	if err != nil || got["ok-0/00000000000000000000.log"] == nil {
		t.Fatalf("err %v, entries %v", err, got)
	}
	if e := got["locked-0/"]; e == nil || e.Err == nil || e.SkipKind != SkipIOError || e.Partition == nil || e.Partition.Topic != "locked" {
		t.Errorf("locked dir: %+v", e)
	}
}

// TestFileDataRanges: holes are found with SEEK_DATA and SEEK_HOLE, and
// the file's offset is left at its start.
func TestFileDataRanges(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Write([]byte("data"))
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Seek(100, 0)
	rs := FileDataRanges(f, 1<<30)
	if rs == nil {
		t.Skip("SKIPPED: the temp dir's file system does not report holes")
	}
	if len(rs) != 1 || rs[0].Start != 0 || rs[0].End >= 1<<20 || DataEnd(rs, 1<<30) != rs[0].End {
		t.Errorf("ranges %v", rs)
	}
	if off, _ := f.Seek(0, 1); off != 0 {
		t.Errorf("offset left at %d", off)
	}
	if DataEnd(nil, 7) != 7 || DataEnd([]DataRange{}, 7) != 0 {
		t.Error("DataEnd")
	}
}
