package source

import (
	"fmt"
	"os"
	"path/filepath"
)

// OpenNamed opens a file named on the command line: a symlink the user
// named is followed (they chose it), but only a regular file is opened,
// so that a FIFO cannot hang the open or a device (/dev/zero) feed the
// reader forever.
func OpenNamed(name string) (*os.File, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", name, errNotRegular(st.Mode()))
	}
	resolved, err := filepath.EvalSymlinks(name)
	if err != nil {
		return nil, err
	}
	return openRegular(resolved)
}
