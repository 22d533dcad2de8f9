//go:build unix && !linux

package scan

import "golang.org/x/sys/unix"

// Other systems have no MADV_POPULATE_READ: WILLNEED starts the reads.
const madvPopulateRead = unix.MADV_WILLNEED
