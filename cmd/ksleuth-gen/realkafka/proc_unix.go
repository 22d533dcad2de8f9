//go:build unix

package realkafka

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the command in a process group of its own, so that a
// signal reaches the JVM and anything it forks.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	dieWithParent(cmd.SysProcAttr)
}

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	return syscall.Kill(-cmd.Process.Pid, sig)
}

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)
