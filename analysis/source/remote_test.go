package source

import (
	"os"
	"path/filepath"
	"testing"
)

// TestParseRemoteNames: ids are cut by length, since base64url ids hold
// dashes, and topics may hold dashes too.
func TestParseRemoteNames(t *testing.T) {
	d, ok := ParseRemoteDir("my-topic-12-a-b_cdefghijklmnopqrst")
	if !ok || d.Topic != "my-topic" || d.Partition != 12 || d.TopicID != "a-b_cdefghijklmnopqrst" {
		t.Errorf("ParseRemoteDir = %+v, %v", d, ok)
	}
	for _, bad := range []string{"tiered-0", "tiered-x-Fy3GRnlwRH2elChibHkMug", "tiered-0-Fy3GRnlwRH2elChibHkMu", "t-0.0123456789abcdef0123456789abcdef-delete"} {
		if _, ok := ParseRemoteDir(bad); ok {
			t.Errorf("ParseRemoteDir(%q) parsed", bad)
		}
	}
	f, ok := ParseRemoteFile("00000000000000000023-NvJXWuzAQxCmZ135_fdsfQ.leader_epoch_checkpoint")
	if !ok || f.StartOffset != 23 || f.SegmentID != "NvJXWuzAQxCmZ135_fdsfQ" || f.Suffix != "leader_epoch_checkpoint" {
		t.Errorf("ParseRemoteFile = %+v, %v", f, ok)
	}
	for _, bad := range []string{"00000000000000000023.log", "0000000000000000002x-NvJXWuzAQxCmZ135_fdsfQ.log", "00000000000000000023-NvJXWuzAQxCmZ135_fdsfQ"} {
		if _, ok := ParseRemoteFile(bad); ok {
			t.Errorf("ParseRemoteFile(%q) parsed", bad)
		}
	}
}

// TestClassifyRemote: a dir of remote partition dirs, or one above
// kafka-tiered-storage, is a remote input; a log dir is not, even with a
// remote-looking dir in it.
func TestClassifyRemote(t *testing.T) {
	root := t.TempDir()
	remote := filepath.Join(root, "rsm")
	logDir := filepath.Join(root, "data")
	for _, d := range []string{filepath.Join(remote, RemoteStoreDir, "t-0-Fy3GRnlwRH2elChibHkMug"), filepath.Join(logDir, "t-0"),
		filepath.Join(logDir, "t-1-Fy3GRnlwRH2elChibHkMug")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ins, err := Classify([]string{remote, filepath.Join(remote, RemoteStoreDir), logDir})
	if err != nil {
		t.Fatal(err)
	}
	if ins[0].Kind != Remote || ins[1].Kind != Remote || ins[2].Kind != Dir {
		t.Errorf("kinds %v %v %v, want remote remote dir", ins[0].Kind, ins[1].Kind, ins[2].Kind)
	}
	if files, _, err := ins[0].List(Options{}); err != nil || files != nil {
		t.Errorf("List of a remote root = %v, %v: its files are ListRemote's", files, err)
	}
}
