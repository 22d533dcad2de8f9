//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package export

import "os"

// tryLock is a no-op where flock is missing: the lock file still names
// the pid of the last run, but nothing refuses a concurrent one.
func tryLock(*os.File) (busy bool, err error) { return false, nil }
