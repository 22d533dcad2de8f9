//go:build !unix

package realkafka

import (
	"os/exec"
	"syscall"
)

func ownGroup(*exec.Cmd) {}

// signalGroup can only kill outright where there are no Unix signals.
func signalGroup(cmd *exec.Cmd, _ syscall.Signal) error { return cmd.Process.Kill() }

const (
	sigTerm = syscall.Signal(15)
	sigKill = syscall.Signal(9)
)
