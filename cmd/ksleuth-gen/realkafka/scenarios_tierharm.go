package realkafka

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The tiered scenarios beyond clean tiering (issue #40): what the remote
// store or its metadata holds after a hand, a crash, retention or a topic
// deletion took something away. Each truth says what the scenario did.

// remoteSegmentDeleted tiers a topic, stops the broker, then deletes
// every file of one remote segment and cuts another's .log inside a
// batch, in the remote store: __remote_log_metadata still holds both.
var remoteSegmentDeleted = Scenario{
	Name:    "remote-segment-deleted",
	Doc:     "tiered, then one remote segment's files deleted and another's .log cut inside a batch, by hand: their offsets lost",
	Brokers: 1, Stop: "clean", Tiered: true,
	run:   func(s *Session) error { return s.tier(tierPlan{topics: []string{"tiered"}, rounds: s.between(5, 6)}) },
	after: harmRemoteSegments,
}

// remoteFile is one remote segment's .log in a LocalTieredStorage root.
type remoteFile struct {
	path  string
	start int64
	id    string
}

// remoteLogs lists the .log files of a partition's directory in the
// remote root, by start offset.
func remoteLogs(root, topic string, partition int) []remoteFile {
	dirs, _ := filepath.Glob(filepath.Join(root, fmt.Sprintf("%s-%d-*", topic, partition)))
	var out []remoteFile
	for _, d := range dirs {
		logs, _ := filepath.Glob(filepath.Join(d, "*.log"))
		for _, l := range logs {
			base, id, _ := strings.Cut(strings.TrimSuffix(filepath.Base(l), ".log"), "-")
			if n, err := strconv.ParseInt(base, 10, 64); err == nil {
				out = append(out, remoteFile{path: l, start: n, id: id})
			}
		}
	}
	slices.SortFunc(out, func(a, b remoteFile) int { return cmp.Compare(a.start, b.start) })
	return out
}

// batchSpan is one record batch of a segment file: where it starts and
// the offsets it holds.
type batchSpan struct {
	pos, size   int64
	first, last int64
}

// batchSpans walks a segment's batch headers (base offset, length, and
// the last offset delta at byte 23); the scenario needs no more of them.
func batchSpans(raw []byte) []batchSpan {
	var out []batchSpan
	for pos := 0; pos+27 <= len(raw); {
		base := int64(binary.BigEndian.Uint64(raw[pos:]))
		size := 12 + int(int32(binary.BigEndian.Uint32(raw[pos+8:])))
		if size < 27 || pos+size > len(raw) {
			break
		}
		delta := int64(int32(binary.BigEndian.Uint32(raw[pos+23:])))
		out = append(out, batchSpan{pos: int64(pos), size: int64(size), first: base, last: base + delta})
		pos += size
	}
	return out
}

// harmRemoteSegments deletes the second remote segment of tiered-0 and
// cuts the fourth's .log in the middle of the batch that holds its
// middle byte. What a consumer can no longer read is lost: the whole
// deleted segment, and the cut segment from the cut batch on.
func harmRemoteSegments(s *Session, t *Truth) error {
	root := filepath.Join(s.Dir, "remote", remoteDirName)
	logs := remoteLogs(root, "tiered", 0)
	if len(logs) < 4 {
		return fmt.Errorf("%d remote segments of tiered-0, want 4 or more", len(logs))
	}
	gone, cut := logs[1], logs[3]
	raw, err := os.ReadFile(gone.path)
	if err != nil {
		return err
	}
	spans := batchSpans(raw)
	if len(spans) == 0 {
		return fmt.Errorf("%s: no batch", gone.path)
	}
	files, _ := filepath.Glob(strings.TrimSuffix(gone.path, ".log") + ".*")
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	t.Lost = append(t.Lost, TruthLost{Topic: "tiered", FirstOffset: gone.start, LastOffset: spans[len(spans)-1].last, Why: "remote-segment-deleted"})
	if raw, err = os.ReadFile(cut.path); err != nil {
		return err
	}
	spans = batchSpans(raw)
	mid := int64(len(raw) / 2)
	i := slices.IndexFunc(spans, func(b batchSpan) bool { return b.pos+b.size > mid })
	if i < 0 {
		return fmt.Errorf("%s: no batch at byte %d", cut.path, mid)
	}
	at := spans[i].pos + spans[i].size/2
	if err := os.Truncate(cut.path, at); err != nil {
		return err
	}
	s.Logf("deleted remote segment %d (%s) of tiered-0; cut %s at byte %d, in the batch of offsets %d..%d",
		gone.start, gone.id, filepath.Base(cut.path), at, spans[i].first, spans[i].last)
	t.Lost = append(t.Lost, TruthLost{Topic: "tiered", FirstOffset: spans[i].first, LastOffset: spans[len(spans)-1].last, Why: "remote-segment-truncated"})
	for _, h := range []struct {
		f    remoteFile
		harm string
	}{{gone, RemoteDeleted}, {cut, RemoteTruncated}} {
		rel, _ := filepath.Rel(root, h.f.path)
		t.RemoteSegments = append(t.RemoteSegments, TruthRemoteSegment{Topic: "tiered", SegmentID: h.f.id, StartOffset: h.f.start,
			File: filepath.ToSlash(rel), Harm: h.harm})
	}
	return nil
}

// tierRemoteRetention tiers a topic, then sets its retention.bytes so
// that remote retention deletes its two oldest remote segments, and no
// more: the breach left after them is half the third's size.
var tierRemoteRetention = Scenario{
	Name:    "tier-remote-retention",
	Doc:     "tiered, then retention.bytes deletes the two oldest remote segments: their offsets are retention, not lost",
	Brokers: 1, Stop: "clean", Tiered: true,
	run: func(s *Session) error {
		if err := s.tier(tierPlan{topics: []string{"tiered"}, rounds: s.between(5, 6)}); err != nil {
			return err
		}
		return s.remoteRetention("tiered")
	},
}

// remoteRetention sets retention.bytes below the partition's size by its
// two oldest remote segments and half of the third, and waits until
// remote retention has deleted those two and moved the log start.
func (s *Session) remoteRetention(topic string) error {
	root := filepath.Join(s.Dir, "remote", remoteDirName)
	logs := remoteLogs(root, topic, 0)
	if len(logs) < 3 {
		return fmt.Errorf("%d remote segments of %s-0, want 3 or more", len(logs), topic)
	}
	size := func(p string) int64 {
		st, err := os.Stat(p)
		if err != nil {
			return 0
		}
		return st.Size()
	}
	var total int64
	for _, l := range logs {
		total += size(l.path)
	}
	local, _ := filepath.Glob(filepath.Join(s.Cluster.Brokers[0].LogDir, topic+"-0", "*.log"))
	for _, l := range local {
		total += size(l)
	}
	keep := total - size(logs[0].path) - size(logs[1].path) - size(logs[2].path)/2
	if err := alterTopicConfig(s, topic, "retention.bytes", strconv.FormatInt(keep, 10)); err != nil {
		return err
	}
	want := logs[2].start
	deadline := time.Now().Add(60 * time.Second)
	for {
		start, err := logStart(s, topic)
		if err != nil {
			return err
		}
		left := remoteLogs(root, topic, 0)
		if start == want && len(left) == len(logs)-2 {
			s.Logf("remote retention deleted the segments of %s-0 below %d (retention.bytes %d of %d)", topic, start, keep, total)
			s.App.LostWhy = func(t string, _ int32, off int64) string {
				if t == topic && off < start {
					return "retention"
				}
				return "unexplained"
			}
			return nil
		}
		if time.Now().After(deadline) || start > want {
			return fmt.Errorf("remote retention of %s-0: log start %d, %d of %d remote segments left; want %d and %d",
				topic, start, len(left), len(logs), want, len(logs)-2)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
