package snapshot

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// parsed is what a test can check of any state-file parser's result: the
// error, and whether any field holds a value the input did not supply.
type parsed struct {
	err      error
	invented string // "" or which field holds a value that was not read
}

// stateKinds is every state-file kind with a parser, its file name and a
// check that no field of a failed parse was made up.
var stateKinds = []struct {
	kind  Kind
	name  string
	parse func(path string, data []byte) parsed
}{
	{KindPartitionMetadata, "p-0/partition.metadata", func(path string, data []byte) parsed {
		m, err := ParsePartitionMetadata(path, data)
		switch {
		case !m.HasTopicID && m.TopicID != (UUID{}):
			return parsed{err, "topic_id"}
		case m.Version != -1 && !bytes.HasPrefix(data, []byte("version:")):
			return parsed{err, "version"}
		}
		return parsed{err: err}
	}},
	{KindLeaderEpochCheckpoint, "p-0/leader-epoch-checkpoint", func(path string, data []byte) parsed {
		c, err := ParseLeaderEpochCheckpoint(path, data)
		return parsed{err, checkpointInvented(data, c.Version, c.Count, len(c.Entries))}
	}},
	{KindRecoveryPointCheckpoint, "recovery-point-offset-checkpoint", parseOffsets},
	{KindReplicationCheckpoint, "replication-offset-checkpoint", parseOffsets},
	{KindLogStartCheckpoint, "log-start-offset-checkpoint", parseOffsets},
	{KindCleanerCheckpoint, "cleaner-offset-checkpoint", parseOffsets},
	{KindMetaProperties, "meta.properties", func(path string, data []byte) parsed {
		m, err := ParseMetaProperties(path, data)
		if (m.Version >= 0 && m.Props["version"] == "") || (m.BrokerID >= 0 && m.Props["broker.id"] == "") || (m.NodeID >= 0 && m.Props["node.id"] == "") {
			return parsed{err, "version or id"}
		}
		return parsed{err: err}
	}},
	{KindQuorumState, "quorum-state", func(path string, data []byte) parsed {
		q, err := ParseQuorumState(path, data)
		if q.Fields == nil && (q.LeaderID != -1 || q.LeaderEpoch != -1 || q.VotedID != -1 || q.DataVersion != -1) {
			return parsed{err, "leader or epoch"}
		}
		return parsed{err: err}
	}},
	{KindCleanShutdown, ".kafka_cleanshutdown", func(path string, data []byte) parsed {
		c, err := ParseCleanShutdown(path, data)
		if c.Fields == nil && (c.Version != -1 || c.BrokerEpoch != -1) {
			return parsed{err, "version or brokerEpoch"}
		}
		return parsed{err: err}
	}},
	{KindSnapshot, "p-0/00000000000000000042.snapshot", func(path string, data []byte) parsed {
		f, err := ParseNamed(path, data)
		if f.Version != SnapshotVersion && len(f.Entries) > 0 {
			return parsed{err, "entries"}
		}
		return parsed{err: err}
	}},
}

func parseOffsets(path string, data []byte) parsed {
	c, err := ParseOffsetCheckpoint(path, data)
	return parsed{err, checkpointInvented(data, c.Version, c.Count, len(c.Entries))}
}

// checkpointInvented names a header field that holds a value although the
// input does not start with a number line for it.
func checkpointInvented(data []byte, version, count, entries int) string {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r", "\n"), "\n")
	isNum := func(i int) bool {
		if i >= len(lines) {
			return false
		}
		t := strings.TrimSpace(lines[i])
		return t != "" && strings.Trim(t, "-0123456789") == ""
	}
	switch {
	case version != -1 && !isNum(0):
		return "version"
	case count != -1 && !isNum(1):
		return "count"
	case entries > 0 && !isNum(1):
		return "entries"
	}
	return ""
}

// garbageInputs are files of the wrong kind or no kind: seeded random
// bytes, text of other state files, a segment's first bytes, plain text.
func garbageInputs() map[string][]byte {
	r := rand.New(rand.NewPCG(7, 11))
	in := map[string][]byte{
		"partition.metadata text": []byte("version: 0\ntopic_id: 8VxQXw3JRj2gtl6QvJ9ueQ"),
		"quorum-state json":       []byte(`{"leaderId":1,"leaderEpoch":8,"votedId":-1,"data_version":0}`),
		"checkpoint text":         []byte("0\n1\ntopic 0 42\n"),
		"properties text":         []byte("#\nversion=0\nbroker.id=0\n"),
		"plain text":              []byte("hello, world\nthis is not a kafka file\n"),
		// A v2 batch header: base offset 0, length 61, epoch 0, magic 2.
		"segment bytes": {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 61, 0, 0, 0, 0, 2, 0x12, 0x34, 0x56, 0x78},
	}
	for _, n := range []int{1, 5, 10, 47, 300, 4096} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		if n >= 2 && b[0] == 0 && b[1] == 1 {
			b[1] = 2 // keep it from posing as a version-1 snapshot
		}
		in["random "+string(rune('a'+len(in)))] = b
	}
	return in
}

// validFor reports inputs that are in fact valid files of the kind.
func validFor(k Kind, input string) bool {
	switch {
	case k == KindPartitionMetadata && input == "partition.metadata text",
		k == KindQuorumState && input == "quorum-state json",
		k.IsOffsetCheckpoint() && input == "checkpoint text",
		k == KindMetaProperties && input == "properties text",
		// Java Properties also splits at ':', so this is a version-0
		// meta.properties without broker.id.
		k == KindMetaProperties && input == "partition.metadata text":
		return true
	}
	return false
}

// TestGarbageStateFiles feeds every state-file parser input that is not a
// file of its kind: each must fail with errors that name the file, the
// byte or line, the kind it was read as and what was expected, and leave
// every field it did not read unset.
func TestGarbageStateFiles(t *testing.T) {
	for _, sk := range stateKinds {
		for input, data := range garbageInputs() {
			if validFor(sk.kind, input) {
				continue
			}
			t.Run(sk.kind.String()+"/"+input, func(t *testing.T) {
				res := sk.parse(sk.name, data)
				if res.invented != "" {
					t.Errorf("%s holds a value the input did not give", res.invented)
				}
				if res.err == nil {
					t.Fatalf("no error for %q", data)
				}
				for _, e := range leaves(res.err) {
					var fe *FormatError
					if !errors.As(e, &fe) {
						if strings.HasSuffix(e.Error(), "more problems not listed") {
							continue
						}
						t.Fatalf("%T is not a *FormatError: %v", e, e)
					}
					msg := fe.Error()
					if fe.Path != sk.name || !strings.HasPrefix(msg, sk.name+":") {
						t.Errorf("error does not start with the file name: %s", msg)
					}
					if fe.Kind != sk.kind {
						t.Errorf("kind %v, want %v: %s", fe.Kind, sk.kind, msg)
					}
					if fe.Offset < 0 || fe.Offset > int64(len(data)) || !strings.Contains(msg, "at byte ") {
						t.Errorf("position %d outside the %d-byte input: %s", fe.Offset, len(data), msg)
					}
					if !strings.Contains(fe.Err.Error(), "want") {
						t.Errorf("message does not say what was expected: %s", msg)
					}
					if !strings.Contains(fe.Err.Error(), kindLabel(sk.kind)+": ") {
						t.Errorf("message does not name the kind %q: %s", kindLabel(sk.kind), msg)
					}
					if sk.kind != KindSnapshot && strings.Contains(msg, "snapshot") {
						t.Errorf("a %s is called a snapshot: %s", sk.kind, msg)
					}
				}
			})
		}
	}
}

// TestEmptyStateFiles: a 0-byte file is ErrEmpty for the kinds the broker
// cannot read empty, named .tmp leftovers included, and no error for the
// kinds an empty file is valid for.
func TestEmptyStateFiles(t *testing.T) {
	emptyIsError := map[Kind]bool{KindPartitionMetadata: true, KindMetaProperties: true, KindQuorumState: true, KindSnapshot: true}
	for _, sk := range stateKinds {
		for _, name := range []string{sk.name, sk.name + SuffixTmp} {
			res := sk.parse(name, nil)
			if res.invented != "" {
				t.Errorf("%s: %s holds a value the empty file did not give", name, res.invented)
			}
			if !emptyIsError[sk.kind] {
				if res.err != nil {
					t.Errorf("%s: empty file is valid for the broker, got %v", name, res.err)
				}
				continue
			}
			if !errors.Is(res.err, ErrEmpty) || errors.Is(res.err, ErrSyntax) {
				t.Errorf("%s: err = %v, want ErrEmpty alone", name, res.err)
			} else if msg := res.err.Error(); !strings.Contains(msg, "empty file") || strings.Contains(msg, "EOF") {
				t.Errorf("%s: message %q", name, msg)
			}
		}
	}
	c, _ := ParseLeaderEpochCheckpoint("leader-epoch-checkpoint", nil)
	if !c.Empty || c.Version != -1 || c.Count != -1 {
		t.Errorf("empty leader-epoch-checkpoint: %+v", c)
	}
}
