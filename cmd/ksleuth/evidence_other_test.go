//go:build !linux

package main

import (
	"os"
	"os/exec"
	"testing"
)

// statCtimeNlink: elsewhere the evidence tests compare size, mode, mtime
// and content only.
func statCtimeNlink(os.FileInfo) (int64, uint64) { return 0, 0 }

// asNobody: switching the user of a child process is done on Linux only.
func asNobody(t *testing.T, cmd *exec.Cmd) { t.Skip("running as another user is tested on Linux") }
