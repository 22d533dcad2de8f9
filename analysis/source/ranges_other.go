//go:build !(linux || freebsd)

package source

import "os"

// FileDataRanges cannot tell holes on this system: it returns nil, and
// every byte counts as data.
func FileDataRanges(f *os.File, size int64) []DataRange { return nil }
