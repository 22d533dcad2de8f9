package segment

// prefetch asks the CPU to bring b's cache lines in without waiting for
// them (PREFETCHT0 every 64 bytes). It never faults, whatever b holds.
//
//go:noescape
func prefetch(b []byte)
