//go:build !unix

package source

import (
	"fmt"
	"os"
)

// openRegular opens a file read-only and only if it is a regular file.
func openRegular(name string) (*os.File, error) {
	if st, err := os.Lstat(name); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", name, errNotRegular(st.Mode()))
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s: %w", name, errNotRegular(st.Mode()))
		}
		return nil, err
	}
	return f, nil
}
