package snapshot

import (
	"errors"
	"strings"
	"testing"
)

// checkErr asserts err matches every sentinel in want (nil want = no error),
// that the primary FormatError has the wanted line (when wantLine > 0) and
// that its offset lies inside the input.
func checkErr(t *testing.T, in string, err error, want []error, wantLine int) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	for _, w := range want {
		if !errors.Is(err, w) {
			t.Errorf("err = %v, want %v", err, w)
		}
	}
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("%T is not a *FormatError: %v", err, err)
	}
	if wantLine > 0 && fe.Line != wantLine {
		t.Errorf("line = %d, want %d (%v)", fe.Line, wantLine, err)
	}
	if fe.Offset < 0 || fe.Offset > int64(len(in)) {
		t.Errorf("offset %d outside input of %d bytes", fe.Offset, len(in))
	}
}

func TestParseOffsetCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       string
		entries  int
		empty    bool
		crlf     bool
		want     []error
		wantLine int
	}{
		{name: "doc example", in: "0\n2\nmytopic 0 1234\nmytopic 1 99\n", entries: 2},
		{name: "no final newline", in: "0\n1\nmytopic 0 1234", entries: 1},
		{name: "crlf", in: "0\r\n2\r\na 0 1\r\nb 3 4\r\n", entries: 2, crlf: true},
		{name: "extra spaces and tabs", in: "0\n1\n  t \t 0   5  \n", entries: 1},
		{name: "empty file", in: "", empty: true},
		{name: "version only", in: "0\n", empty: true},
		{name: "zero entries", in: "0\n0\n"},
		{name: "topic with dashes and dots", in: "0\n1\n__consumer_offsets-x.y 49 -1\n", entries: 1},
		{name: "bad version", in: "1\n0\n", want: []error{ErrVersion}, wantLine: 1},
		{name: "version not a number", in: "x\n0\n", want: []error{ErrSyntax}, wantLine: 1},
		{name: "count not a number", in: "0\nfoo\n", want: []error{ErrSyntax}, wantLine: 2},
		{name: "negative count", in: "0\n-3\n", want: []error{ErrSyntax}, wantLine: 2},
		{name: "huge count", in: "0\n2147483647\na 0 1\n", entries: 1, want: []error{ErrCount}, wantLine: 2},
		{name: "count too small", in: "0\n1\na 0 1\nb 0 2\n", entries: 2, want: []error{ErrCount}, wantLine: 2},
		{name: "count too big", in: "0\n3\na 0 1\n", entries: 1, want: []error{ErrCount}, wantLine: 2},
		{name: "two fields", in: "0\n1\na 0\n", want: []error{ErrSyntax}, wantLine: 3},
		{name: "bad partition", in: "0\n1\na x 3\n", want: []error{ErrSyntax}},
		{name: "partition overflows int32", in: "0\n1\na 2147483648 3\n", want: []error{ErrSyntax}},
		{name: "blank line inside", in: "0\n2\na 0 1\n\nb 0 2\n", entries: 2, want: []error{ErrSyntax, ErrCount}},
		{name: "binary garbage", in: "\x00\x01\x02\xff", want: []error{ErrSyntax}, wantLine: 1},
		{name: "snapshot fed in", in: "\x00\x01\x48\x67\x4b\xc7\x00\x00\x00\x00", want: []error{ErrSyntax}, wantLine: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseOffsetCheckpoint("dir/replication-offset-checkpoint", []byte(tc.in))
			checkErr(t, tc.in, err, tc.want, tc.wantLine)
			if c == nil {
				t.Fatal("nil result")
			}
			if len(c.Entries) != tc.entries || c.Empty != tc.empty || c.CRLF != tc.crlf {
				t.Errorf("entries %d empty %v crlf %v; want %d %v %v", len(c.Entries), c.Empty, c.CRLF, tc.entries, tc.empty, tc.crlf)
			}
			if c.Kind != KindReplicationCheckpoint {
				t.Errorf("kind %v", c.Kind)
			}
		})
	}
	c, _ := ParseOffsetCheckpoint("", []byte("0\n2\nmytopic 0 1234\nmytopic 1 99\n"))
	if c.Entries[1] != (OffsetEntry{Topic: "mytopic", Partition: 1, Offset: 99, Line: 4}) {
		t.Errorf("entry = %+v", c.Entries[1])
	}
	// Thousands of bad lines give a bounded list of findings.
	big := "0\n1\n" + strings.Repeat("garbage\n", 10000)
	_, err := ParseOffsetCheckpoint("x", []byte(big))
	if !errors.Is(err, ErrCount) || strings.Count(err.Error(), "\n") > maxFindings+2 {
		t.Errorf("findings not capped: %d lines", strings.Count(err.Error(), "\n"))
	}
}

func TestParseLeaderEpochCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       string
		entries  int
		want     []error
		wantLine int
	}{
		{name: "ok", in: "0\n3\n0 0\n2 17\n5 17\n", entries: 3},
		{name: "crlf", in: "0\r\n1\r\n4 0\r\n", entries: 1},
		{name: "empty", in: ""},
		{name: "three fields", in: "0\n1\n0 0 0\n", want: []error{ErrSyntax}, wantLine: 3},
		{name: "epoch overflow", in: "0\n1\n2147483648 0\n", want: []error{ErrSyntax}},
		{name: "epochs not rising", in: "0\n2\n3 0\n3 10\n", entries: 2, want: []error{ErrOrder}, wantLine: 4},
		{name: "start offsets falling", in: "0\n2\n1 10\n2 5\n", entries: 2, want: []error{ErrOrder}, wantLine: 4},
		{name: "bad version", in: "2\n0\n", want: []error{ErrVersion}, wantLine: 1},
		{name: "count mismatch", in: "0\n2\n0 0\n", entries: 1, want: []error{ErrCount}, wantLine: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseLeaderEpochCheckpoint("p-0/leader-epoch-checkpoint", []byte(tc.in))
			checkErr(t, tc.in, err, tc.want, tc.wantLine)
			if len(c.Entries) != tc.entries {
				t.Errorf("entries %d, want %d", len(c.Entries), tc.entries)
			}
		})
	}
	c, _ := ParseLeaderEpochCheckpoint("", []byte("0\n2\n0 0\n2 17\n"))
	if c.Entries[1] != (EpochEntry{Epoch: 2, StartOffset: 17, Line: 4}) {
		t.Errorf("entry = %+v", c.Entries[1])
	}
	c, _ = ParseLeaderEpochCheckpoint("p-0/leader-epoch-checkpoint.tmp", []byte("0\n0\n"))
	if !c.Leftover {
		t.Error("tmp file not flagged as leftover")
	}
}

func TestParsePartitionMetadata(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       string
		id       string
		want     []error
		wantLine int
	}{
		{name: "ok", in: "version: 0\ntopic_id: ZXO_LeiHTaaEE76lfnYZUg", id: "ZXO_LeiHTaaEE76lfnYZUg"},
		{name: "metadata topic", in: "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ", id: "AAAAAAAAAAAAAAAAAAAAAQ"},
		{name: "trailing newline", in: "version: 0\ntopic_id: ZXO_LeiHTaaEE76lfnYZUg\n", id: "ZXO_LeiHTaaEE76lfnYZUg"},
		{name: "crlf", in: "version: 0\r\ntopic_id: ZXO_LeiHTaaEE76lfnYZUg\r\n", id: "ZXO_LeiHTaaEE76lfnYZUg"},
		{name: "padded uuid", in: "version: 0\ntopic_id: ZXO_LeiHTaaEE76lfnYZUg==", id: "ZXO_LeiHTaaEE76lfnYZUg"},
		{name: "zero uuid", in: "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA", id: "AAAAAAAAAAAAAAAAAAAAAA", want: []error{ErrZeroUUID}, wantLine: 2},
		{name: "empty", in: "", want: []error{ErrEmpty}},
		{name: "version only", in: "version: 0\n", want: []error{ErrTruncated}, wantLine: 2},
		{name: "no topic id", in: "version: 0\n", want: []error{ErrTruncated}, wantLine: 2},
		{name: "no space after colon", in: "version:0\ntopic_id: x", want: []error{ErrSyntax}, wantLine: 1},
		{name: "wrong key", in: "version: 0\ntopic: ZXO_LeiHTaaEE76lfnYZUg", want: []error{ErrSyntax}, wantLine: 2},
		{name: "bad version", in: "version: x\ntopic_id: ZXO_LeiHTaaEE76lfnYZUg", want: []error{ErrSyntax}, wantLine: 1},
		{name: "short uuid", in: "version: 0\ntopic_id: ZXO_Lei", want: []error{ErrSyntax}, wantLine: 2},
		{name: "standard base64 chars", in: "version: 0\ntopic_id: ZXO/LeiHTaaEE76lfnYZUg", want: []error{ErrSyntax}, wantLine: 2},
		{name: "extra line", in: "version: 0\ntopic_id: ZXO_LeiHTaaEE76lfnYZUg\nmore: 1", id: "ZXO_LeiHTaaEE76lfnYZUg", want: []error{ErrTrailing}, wantLine: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParsePartitionMetadata("p-0/partition.metadata", []byte(tc.in))
			checkErr(t, tc.in, err, tc.want, tc.wantLine)
			if tc.id != "" && m.TopicID.String() != tc.id {
				t.Errorf("topic id %s, want %s", m.TopicID, tc.id)
			}
		})
	}
}

func TestParseMetaProperties(t *testing.T) {
	for _, tc := range []struct {
		name      string
		in        string
		version   int
		id        int32
		cluster   string
		hasClust  bool
		note      string // substring of some note
		want      []error
		wantLine  int
		wantDirID string
	}{
		{name: "zookeeper", in: "#\n#Thu Jul 18 18:09:58 IST 2024\nbroker.id=0\ncluster.id=XB4QhweWTe-kZwMNW25y1A\nversion=0\n",
			version: 0, id: 0, cluster: "XB4QhweWTe-kZwMNW25y1A", hasClust: true},
		{name: "kraft", in: "#\n#d\nnode.id=1\ndirectory.id=7JmH4YiRA0Bg4MtqR69GOg\nversion=1\ncluster.id=jhCzCarDSyqr9FkZhIbmYQ\n",
			version: 1, id: 1, cluster: "jhCzCarDSyqr9FkZhIbmYQ", hasClust: true, wantDirID: "7JmH4YiRA0Bg4MtqR69GOg"},
		{name: "crlf", in: "#\r\n#d\r\nnode.id=1\r\nversion=1\r\ncluster.id=qDiEGq8USDuFevMYl0UwZg\r\n",
			version: 1, id: 1, cluster: "qDiEGq8USDuFevMYl0UwZg", hasClust: true, note: "CRLF"},
		{name: "empty cluster id", in: "cluster.id=\nnode.id=1\nversion=1\n", version: 1, id: 1, hasClust: true, note: "empty"},
		{name: "no cluster id", in: "version=0\nbroker.id=1001\n", version: 0, id: 1001, note: "before Kafka 2.4"},
		{name: "free text cluster id", in: "cluster.id=universe-labs-cluster\nnode.id=1\nversion=1\n",
			version: 1, id: 1, cluster: "universe-labs-cluster", hasClust: true, note: "not a base64 uuid"},
		{name: "java syntax variants", in: "! comment\n  version : 0\nbroker.id 7\ncluster.id=a\\\n   bc\\u0041\n",
			version: 0, id: 7, cluster: "abcA", hasClust: true},
		{name: "no version", in: "broker.id=0\n", version: -1, id: 0, want: []error{ErrSyntax}, note: "before"},
		{name: "bad version", in: "version=2\nnode.id=1\n", version: 2, id: 1, want: []error{ErrVersion}, wantLine: 1},
		{name: "version not number", in: "version=one\n", version: -1, id: -1, want: []error{ErrSyntax}, wantLine: 1},
		{name: "kraft without node id", in: "version=1\ncluster.id=x\n", version: 1, id: -1, cluster: "x", hasClust: true, want: []error{ErrSyntax}},
		{name: "bad broker id", in: "version=0\nbroker.id=abc\n", version: 0, id: -1, want: []error{ErrSyntax}, wantLine: 2},
		{name: "empty file", in: "", version: -1, id: -1, want: []error{ErrEmpty}},
		{name: "blank line only", in: "\n", version: -1, id: -1, want: []error{ErrSyntax}},
		{name: "binary", in: "\x00\x01\x48\x67", version: -1, id: -1, want: []error{ErrSyntax}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseMetaProperties("meta.properties", []byte(tc.in))
			checkErr(t, tc.in, err, tc.want, tc.wantLine)
			if m.Version != tc.version || m.ID() != tc.id || m.ClusterID != tc.cluster || m.HasClusterID != tc.hasClust || m.DirectoryID != tc.wantDirID {
				t.Errorf("got version %d id %d cluster %q/%v dir %q", m.Version, m.ID(), m.ClusterID, m.HasClusterID, m.DirectoryID)
			}
			if tc.note != "" && !strings.Contains(strings.Join(m.Notes, "|"), tc.note) {
				t.Errorf("notes %q lack %q", m.Notes, tc.note)
			}
		})
	}
}

func TestParseCleanShutdown(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		empty bool
		epoch int64
		want  []error
	}{
		{name: "pre 3.7 empty", in: "", empty: true, epoch: -1},
		{name: "json", in: `{"version":0,"brokerEpoch":53326}`, epoch: 53326},
		{name: "json epoch -1", in: `{"version":0,"brokerEpoch":-1}`, epoch: -1},
		{name: "bad json", in: `{"version":0,`, epoch: -1, want: []error{ErrSyntax}},
		{name: "not an object", in: `[1,2]`, epoch: -1, want: []error{ErrSyntax}},
		{name: "trailing", in: `{"version":0,"brokerEpoch":5} x`, epoch: 5, want: []error{ErrTrailing}},
		{name: "future version", in: `{"version":3,"brokerEpoch":5}`, epoch: 5, want: []error{ErrVersion}},
		{name: "binary", in: "\x00\x01", epoch: -1, want: []error{ErrSyntax}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseCleanShutdown(".kafka_cleanshutdown", []byte(tc.in))
			checkErr(t, tc.in, err, tc.want, 0)
			if c.Empty != tc.empty || c.BrokerEpoch != tc.epoch {
				t.Errorf("got %+v", c)
			}
		})
	}
}

func TestParseQuorumState(t *testing.T) {
	in := `{"clusterId":"","leaderId":1,"leaderEpoch":8,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1}],"data_version":0}`
	q, err := ParseQuorumState("quorum-state", []byte(in))
	if err != nil || q.LeaderID != 1 || q.LeaderEpoch != 8 || q.VotedID != -1 || q.DataVersion != 0 || q.Fields["clusterId"] != "" {
		t.Fatalf("%+v %v", q, err)
	}
	q, err = ParseQuorumState("quorum-state", []byte(`{"votedId":3}`))
	if err != nil || q.LeaderID != -1 || q.VotedID != 3 {
		t.Fatalf("%+v %v", q, err)
	}
	_, err = ParseQuorumState("quorum-state", []byte(`{"leaderId":`))
	checkErr(t, `{"leaderId":`, err, []error{ErrSyntax}, 0)
	_, err = ParseQuorumState("quorum-state", nil)
	checkErr(t, "", err, []error{ErrEmpty}, 0)
	_, err = ParseQuorumState("quorum-state", []byte(" \n"))
	checkErr(t, " \n", err, []error{ErrSyntax}, 0)
}

func TestKindOf(t *testing.T) {
	for _, tc := range []struct {
		name     string
		kind     Kind
		suffix   string
		leftover bool
		offset   int64
		epoch    int64
	}{
		{"00000000000000000000.log", KindLog, "", false, 0, -1},
		{"00000000000000000042.index", KindIndex, "", false, 42, -1},
		{"00000000000000003462.index.deleted", KindIndex, SuffixDeleted, false, 3462, -1},
		{"00000000000000003462.timeindex.deleted", KindTimeIndex, SuffixDeleted, false, 3462, -1},
		{"00000000000000000000.timeindex.cleaned", KindTimeIndex, SuffixCleaned, false, 0, -1},
		{"00000000000000000000.log.swap", KindLog, SuffixSwap, false, 0, -1},
		{"00000000000000000007.txnindex", KindTxnIndex, "", false, 7, -1},
		{"00000000000000020907.snapshot.deleted", KindSnapshot, SuffixDeleted, false, 20907, -1},
		{"leader-epoch-checkpoint", KindLeaderEpochCheckpoint, "", false, -1, -1},
		{"leader-epoch-checkpoint.tmp", KindLeaderEpochCheckpoint, "", true, -1, -1},
		{"partition.metadata", KindPartitionMetadata, "", false, -1, -1},
		{"partition.metadata.tmp", KindPartitionMetadata, "", true, -1, -1},
		{"recovery-point-offset-checkpoint", KindRecoveryPointCheckpoint, "", false, -1, -1},
		{"replication-offset-checkpoint", KindReplicationCheckpoint, "", false, -1, -1},
		{"log-start-offset-checkpoint", KindLogStartCheckpoint, "", false, -1, -1},
		{"cleaner-offset-checkpoint", KindCleanerCheckpoint, "", false, -1, -1},
		{"cleaner-offset-checkpoint.tmp", KindCleanerCheckpoint, "", true, -1, -1},
		{"meta.properties", KindMetaProperties, "", false, -1, -1},
		{".kafka_cleanshutdown", KindCleanShutdown, "", false, -1, -1},
		{"quorum-state", KindQuorumState, "", false, -1, -1},
		{"00000000000000001234-0000000005.checkpoint", KindKRaftSnapshot, "", false, 1234, 5},
		{"00000000000002361015-0000000001.checkpoint.deleted", KindKRaftSnapshot, SuffixDeleted, false, 2361015, 1},
		{"00000000000000001234-0000000005-3f9a.checkpoint.part", KindKRaftSnapshot, "", true, 1234, 5},
		{"bootstrap.checkpoint", KindBootstrapCheckpoint, "", false, -1, -1},
		{".lock", KindLock, "", false, -1, -1},
		{"server.log", KindUnknown, "", false, -1, -1},
		{"0000000000000000000.log", KindUnknown, "", false, -1, -1},
		{"00000000000000000000.foo", KindUnknown, "", false, -1, -1},
		{"1234-5.checkpoint", KindUnknown, "", false, -1, -1},
		{"", KindUnknown, "", false, -1, -1},
		{".deleted", KindUnknown, "", false, -1, -1},
		{"dir/p-0/00000000000000000042.snapshot", KindSnapshot, "", false, 42, -1},
	} {
		n := ParseName(tc.name)
		want := Name{Kind: tc.kind, Suffix: tc.suffix, Leftover: tc.leftover, Offset: tc.offset, Epoch: tc.epoch}
		if n != want {
			t.Errorf("ParseName(%q) = %+v, want %+v", tc.name, n, want)
		}
		if KindOf(tc.name) != tc.kind {
			t.Errorf("KindOf(%q) = %v", tc.name, KindOf(tc.name))
		}
	}
	if KindCleanerCheckpoint.Group() != "offset-checkpoint" || KindLog.Group() != "log" || !KindReplicationCheckpoint.IsOffsetCheckpoint() {
		t.Error("Group/IsOffsetCheckpoint")
	}
	if KindPartitionMetadata.String() != "partition-metadata" || Kind(200).String() != "unknown" {
		t.Error("String")
	}
}
