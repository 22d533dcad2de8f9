package main

import (
	"archive/tar"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/segment/segtest"
)

// longEntries writes two inputs that keep a command inside one entry for
// minutes, a hole passed at no cost being no longer such an input:
//
//   - a partition dir whose one segment declares 1 TiB: batches at the
//     start, then more data pieces than the holes listed per file
//     (4,096 blocks of zeros 8 KiB apart, 16 MiB on disk), then a hole to
//     four bytes at the very end. Past the listed pieces the file counts as
//     data, so the terabyte is read through as zeros;
//   - a .tar.zst of one 64 GiB plain entry, the batches and then zeros,
//     made by hand of zstd RLE blocks (2 MiB).
func longEntries(t *testing.T, base string) (dir, tarPath string) {
	t.Helper()
	dir = filepath.Join(base, "logs")
	p := filepath.Join(dir, "t-0", segtest.SegmentFileName(0))
	os.MkdirAll(filepath.Dir(p), 0o755)
	var seg []byte
	for i := range 5 {
		seg = append(seg, segtest.Batch{Magic: 2, BaseOffset: int64(i), FirstTimestamp: 1_700_000_000_000,
			Records: []segtest.Record{{Value: []byte("v")}}}.Encode()...)
	}
	if err := os.WriteFile(p, seg, 0o644); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(p, os.O_WRONLY, 0)
	for i := int64(1); i <= 4096; i++ {
		f.WriteAt([]byte{0}, i*8192)
	}
	_, err := f.WriteAt([]byte("tail"), 1<<40-4)
	f.Close()
	if err != nil {
		t.Skipf("SKIPPED: the temp dir's file system holds no 1 TiB sparse file: %v", err)
	}
	tarPath = filepath.Join(base, "long.tar.zst")
	if err := os.WriteFile(tarPath, zeroTarZst(t, filepath.Join("t-0", segtest.SegmentFileName(0)), seg, 64<<30), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, tarPath
}

// zeroTarZst is a zstd frame of a tar holding one entry of size bytes:
// data, then zeros. The zeros are RLE blocks (4 bytes per 128 KiB), and
// the archive stops after the entry's content, with no end marker.
func zeroTarZst(t *testing.T, name string, data []byte, size int64) []byte {
	t.Helper()
	var hdr bytes.Buffer
	tw := tar.NewWriter(&hdr)
	if err := tw.WriteHeader(&tar.Header{Name: name, Size: size, Mode: 0o644, Typeflag: tar.TypeReg, Format: tar.FormatGNU}); err != nil {
		t.Fatal(err)
	}
	raw := append(hdr.Bytes(), data...)
	const block = 128 << 10
	// Frame header: magic, a descriptor with no content size, checksum
	// or dictionary, and a 128 KiB window (exponent 7).
	out := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3}
	blockHeader := func(size int, typ byte, last bool) {
		v := uint32(size)<<3 | uint32(typ)<<1
		if last {
			v |= 1
		}
		out = append(out, byte(v), byte(v>>8), byte(v>>16))
	}
	for len(raw) > 0 { // the header and the data, as raw blocks
		n := min(len(raw), block)
		blockHeader(n, 0, false)
		out = append(out, raw[:n]...)
		raw = raw[n:]
	}
	for rest := size - int64(len(data)); rest > 0; rest -= block {
		blockHeader(int(min(rest, block)), 1, rest <= block)
		out = append(out, 0)
	}
	return out
}

// TestSignalInsideLongEntry: SIGTERM and SIGINT stop every command within
// a second while it is inside one long entry (a terabyte of zeros read
// through in a file, 64 GiB of them in a .tar.zst), with exit 130 and no
// table left.
func TestSignalInsideLongEntry(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := ksleuthBinary(t)
	base := t.TempDir()
	dir, tarPath := longEntries(t, base)
	outs := t.TempDir() // not next to the tar
	inputs := map[string]string{"dir": dir}
	if tarPath != "" {
		inputs["tar"] = tarPath
	}
	for name, in := range inputs {
		for _, c := range []struct {
			args []string
			sig  syscall.Signal
		}{
			{[]string{"scan", in, "--out", filepath.Join(outs, "out-"+name)}, syscall.SIGTERM},
			{[]string{"scan", in, "--out", filepath.Join(outs, "out-"+name)}, syscall.SIGINT},
			{[]string{"verify", in}, syscall.SIGTERM},
			{[]string{"dups", in}, syscall.SIGTERM},
			{[]string{"producers", in}, syscall.SIGTERM},
			{[]string{"report", in, "--html", filepath.Join(outs, name+".html")}, syscall.SIGTERM},
		} {
			cmd := exec.Command(bin, c.args...)
			var se bytes.Buffer
			cmd.Stderr = &se
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(700 * time.Millisecond)
			sent := time.Now()
			cmd.Process.Signal(c.sig)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
			}
			d := time.Since(sent)
			code := cmd.ProcessState.ExitCode()
			t.Logf("%s %v %v: exit %d after %v", name, c.args[0], c.sig, code, d)
			if d > time.Second || code != exitInterrupted {
				t.Errorf("%s %v, %v after 700 ms: exit %d after %v: %s", name, c.args, c.sig, code, d, se.String())
			}
		}
		if _, err := os.Stat(filepath.Join(base, "out-"+name, "manifest.json")); err == nil {
			t.Errorf("%s: an interrupted scan left a set", name)
		}
	}
}
