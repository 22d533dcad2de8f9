package export

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// exchange swaps the directories a and b in one step
// (renameat2 RENAME_EXCHANGE), so that a reader of either name sees the
// old dir or the new one, never neither.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}

// sameDevice reports whether two files are on one file system, where a
// rename between them can work.
func sameDevice(a, b os.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return !ok1 || !ok2 || sa.Dev == sb.Dev
}
