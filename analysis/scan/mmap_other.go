//go:build !unix

package scan

import "os"

// mapFile is not available here: files are read with read(2).
func mapFile(f *os.File, size int64) ([]byte, func(), error) { return nil, nil, errNoMap }

func dropPages([]byte) {}
func populate([]byte)  {}
