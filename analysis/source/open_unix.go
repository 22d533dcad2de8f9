//go:build unix

package source

import (
	"fmt"
	"os"
	"syscall"
)

// openRegular opens a file read-only and only if it is a regular file.
// O_NONBLOCK keeps the open of a FIFO (or a file swapped for one after it
// was listed) from waiting for a writer forever; O_NOFOLLOW refuses a
// symlink put in the file's place. The flag does nothing to reads of a
// regular file.
func openRegular(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, errNotRegular(st.Mode()))
	}
	return f, nil
}
