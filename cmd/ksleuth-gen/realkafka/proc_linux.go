package realkafka

import "syscall"

// dieWithParent has the kernel kill the child when the test binary dies
// without running its cleanups (a panic in another goroutine, a timeout).
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
