//go:build !linux

package export

// exchange is not available: replaceDir falls back to two renames.
func exchange(a, b string) error { return errNoExchange }
