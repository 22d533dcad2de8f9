package snapshot

import "testing"

// TestParseNameRemote: a tiered segment's files as LocalTieredStorage
// names them are the kinds of a log dir's, with the start offset and the
// segment id (which may hold '-' and '_'); near misses are not.
func TestParseNameRemote(t *testing.T) {
	const id = "NvJXWuzAQxCmZ135_fds-Q"
	for _, c := range []struct {
		name string
		kind Kind
		off  int64
		id   string
	}{
		{"00000000000000000023-" + id + ".log", KindLog, 23, id},
		{"00000000000000000023-" + id + ".index", KindIndex, 23, id},
		{"00000000000000000023-" + id + ".timeindex", KindTimeIndex, 23, id},
		{"00000000000000000023-" + id + ".txnindex", KindTxnIndex, 23, id},
		{"00000000000000000023-" + id + ".snapshot", KindSnapshot, 23, id},
		{"00000000000000000023-" + id + ".leader_epoch_checkpoint", KindLeaderEpochCheckpoint, 23, id},
		{"00000000000000000023-" + id + ".json", KindUnknown, -1, ""},
		{"00000000000000000023-" + id[:21] + ".log", KindUnknown, -1, ""},
		{"0000000000000000002x-" + id + ".log", KindUnknown, -1, ""},
		{"00000000000000000023.log", KindLog, 23, ""},
		{"leader_epoch_checkpoint", KindUnknown, -1, ""},
	} {
		n := ParseName(c.name)
		if n.Kind != c.kind || n.Offset != c.off || n.SegmentID != c.id {
			t.Errorf("%s: kind %v offset %d id %q, want %v %d %q", c.name, n.Kind, n.Offset, n.SegmentID, c.kind, c.off, c.id)
		}
	}
}
