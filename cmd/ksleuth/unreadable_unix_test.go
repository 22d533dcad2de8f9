//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/segment/segtest"
)

// TestUnreadableFiles: files the scan cannot read (permission denied for
// an unprivileged user, a FIFO that would block, a dir where a segment
// should be) are findings for those files; the rest is scanned, and the
// tables are written.
func TestUnreadableFiles(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("needs root to switch to an unprivileged user")
	}
	bin := ksleuthBinary(t)
	root := t.TempDir()
	openPath(t, root)
	logDir := filepath.Join(root, "logs")
	m, err := segtest.GenerateLogDir(logDir, 3, segtest.GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	denied := filepath.Join(logDir, m.Partitions[0].Segments[0].File)
	if err := os.Chmod(denied, 0o000); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(logDir, m.Partitions[1].Dir, "00000000000000099999.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(logDir, m.Partitions[1].Dir, "00000000000000077777.log")
	if err := os.Symlink("/etc/passwd", outside); err != nil {
		t.Fatal(err)
	}
	asDir := filepath.Join(logDir, m.Partitions[2].Dir, "00000000000000088888.log")
	os.Mkdir(asDir, 0o755)
	os.WriteFile(filepath.Join(asDir, "x"), []byte("x"), 0o644)
	outRoot := t.TempDir()
	openPath(t, outRoot)
	os.Chmod(outRoot, 0o777)
	out := filepath.Join(outRoot, "out")
	cmd := exec.Command(bin, "scan", logDir, "--out", out)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	done := make(chan error, 1)
	cmd.Start()
	go func() { done <- cmd.Wait() }()
	<-done
	code := cmd.ProcessState.ExitCode()
	t.Logf("exit %d, stderr: %s", code, se.String())
	files := readTable[analysis.FileRow](t, filepath.Join(out, tableFiles))
	var total int64
	st := map[string]string{}
	for _, f := range files {
		st[f.Path] = f.Status
	}
	rel := func(p string) string { r, _ := filepath.Rel(logDir, p); return filepath.ToSlash(r) }
	if st[rel(denied)] != "unreadable" {
		t.Errorf("permission denied file: status %q", st[rel(denied)])
	}
	// Named like segments, the FIFO and the link out of the input are
	// files of the broker's that the copy does not hold: unreadable.
	if st[rel(fifo)] != "unreadable" {
		t.Errorf("fifo: status %q", st[rel(fifo)])
	}
	if st[rel(outside)] != "unreadable" {
		t.Errorf("symlink out of the input: status %q", st[rel(outside)])
	}
	batches := readTable[analysis.BatchRow](t, filepath.Join(out, tableBatches))
	for _, p := range m.Partitions {
		for _, s := range p.Segments {
			if filepath.Join(logDir, s.File) != denied {
				total += int64(len(s.Batches))
			}
		}
	}
	if int64(len(batches)) != total {
		t.Errorf("%d batches read, want %d (all but the unreadable file's)", len(batches), total)
	}
	if code != exitFindings {
		t.Errorf("exit %d, want %d: the scan completed with findings", code, exitFindings)
	}
}

// TestTornSegmentDirUnlisted: a segment given on its own whose dir cannot
// be listed (no read permission on it, only search) may be the active
// segment or a rolled one: verify, dump and records grade its torn batch a warning
// that says its place is unknown, not the active segment's torn tail.
func TestTornSegmentDirUnlisted(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("needs root to switch to an unprivileged user")
	}
	bin := ksleuthBinary(t)
	root := t.TempDir()
	openPath(t, root)
	m, err := segtest.GenerateLogDir(root, 3, segtest.GenOptions{SegmentBytes: 1200})
	if err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(root, m.Partitions[0].Segments[0].File)
	if err := os.Truncate(seg, m.Partitions[0].Segments[0].Size-5); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(seg), 0o711); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"verify", seg}, {"dump", seg}, {"records", seg}} {
		cmd := exec.Command(bin, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, _ := cmd.CombinedOutput()
		s := unwrap(string(out))
		if !strings.Contains(s, "whose directory could not be listed") || strings.Contains(s, "a torn tail, left by a crash") ||
			strings.Contains(s, "in a rolled segment") || !strings.Contains(s, "warning") {
			t.Errorf("%s of a segment in an unlisted dir:\n%s", args[0], s)
		}
	}
}
