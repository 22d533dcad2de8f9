package analysis

import "testing"

// TestPartitionDir pins the one answer for every place a path can stand:
// the root of the input (a partition dir given as the input) is ".",
// as in every Dir column, and archive paths, slash-separated, are split at
// their slashes only.
func TestPartitionDir(t *testing.T) {
	for _, c := range []struct{ path, dir string }{
		{"t-0/00000000000000000000.log", "t-0"},
		{"broker1/t-0/00000000000000000000.log", "broker1/t-0"},
		{"data/kafka/logs/t-0/leader-epoch-checkpoint", "data/kafka/logs/t-0"},
		// A file at the input root: the input is the partition dir.
		{"00000000000000000000.log", "."},
		{"00000000000000000042.snapshot", "."},
		// A dir's own entry, as an archive lists it.
		{"t-0/", "t-0"},
		// A name with a backslash is one name in an archive, not a dir.
		{`t-0\00000000000000000000.log`, "."},
		{"", "."},
	} {
		if got := PartitionDir(c.path); got != c.dir {
			t.Errorf("PartitionDir(%q) = %q, want %q", c.path, got, c.dir)
		}
		if got := PartitionOf(3, c.path); got != (PartitionKey{3, c.dir}) {
			t.Errorf("PartitionOf(3, %q) = %+v", c.path, got)
		}
	}
}
