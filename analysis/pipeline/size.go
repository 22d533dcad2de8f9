package pipeline

import (
	"strconv"
	"strings"
)

// ParseSize reads a memory budget as people write it: 123, 64KiB, 512MiB,
// 2GiB (also KB, MB, GB as powers of 1000, and K, M, G as powers of 1024).
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if len(s) > len(u.suffix) && strings.HasSuffix(strings.ToLower(s), strings.ToLower(u.suffix)) {
			s, mult = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, err
	}
	return int64(n * float64(mult)), nil
}
