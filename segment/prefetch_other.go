//go:build !amd64

package segment

// prefetch does nothing where it has no assembly.
func prefetch(b []byte) {}
