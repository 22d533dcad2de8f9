package main

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// statCtimeNlink is a file's change time (ns) and link count: a write,
// chmod or rename of an input changes one of them even when its bytes
// and mtime are put back.
func statCtimeNlink(fi os.FileInfo) (int64, uint64) {
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(sys.Ctim.Sec)*1e9 + int64(sys.Ctim.Nsec), uint64(sys.Nlink)
	}
	return 0, 0
}

// asNobody makes cmd run as the unprivileged user nobody.
func asNobody(t *testing.T, cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
}
