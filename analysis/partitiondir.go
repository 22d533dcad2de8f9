package analysis

import "strings"

// PartitionDir is the partition dir of a file, from its path relative to
// the input root (slash-separated and clean, as source.Entry.Path is, in
// an archive as in a directory): the path's parent, and "." for a file
// directly at the input root, which is a partition dir given as the input
// (its files are named by their base names). "." is the name every Dir
// column and finding already gives that dir, never "": a row, a map key
// and a message of any package name the same dir with the same string.
// A dir's own entry ("t-0/") is in itself.
func PartitionDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return "."
}

// PartitionKey names one partition dir of one input: the dir of the same
// name in two inputs (two brokers) is two copies of the partition.
type PartitionKey struct {
	Input int32
	Dir   string
}

// PartitionOf is the key of the partition dir of the file at path p of
// input (PartitionDir).
func PartitionOf(input int32, p string) PartitionKey {
	return PartitionKey{input, PartitionDir(p)}
}
