//go:build unix && !linux

package realkafka

import "syscall"

func dieWithParent(*syscall.SysProcAttr) {}
