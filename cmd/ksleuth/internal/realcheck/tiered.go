package realcheck

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
)

// The tiered scenarios' truth check (issue #40): verify over the log dirs
// and the remote roots must report exactly the truth's lost ranges, the
// remote findings exactly on the segments the scenario harmed, the
// offsets remote retention deleted as retention, a deleted topic as
// nothing lost, and nothing else above a note.

// tieredLine is one line of verify --json, the fields this check reads.
type tieredLine struct {
	Type      string `json:"type"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Dir       string `json:"dir"`
	First     int64  `json:"first_offset"`
	Last      int64  `json:"last_offset"`
	Cause     string `json:"cause"`
	Severity  string `json:"severity"`
	Kind      string `json:"kind"`
	File      string `json:"file"`
	Offset    *int64 `json:"offset"`
	Message   string `json:"message"`
	State     string `json:"state"`
	Lost      int64  `json:"lost_offsets"`
}

// tieredSpan is a run of offsets of one partition, and why it is gone.
type tieredSpan struct {
	Topic       string
	Partition   int32
	First, Last int64
	Why         string
}

func (s tieredSpan) String() string {
	return fmt.Sprintf("%s-%d %d..%d (%s)", s.Topic, s.Partition, s.First, s.Last, s.Why)
}

// remoteFindingOf is the finding ksleuth owes each harm to a remote
// segment.
var remoteFindingOf = map[string]string{
	realkafka.RemoteDeleted:    "remote-segment-missing",
	realkafka.RemoteTruncated:  "remote-segment-damaged",
	realkafka.RemoteUnfinished: "remote-orphan",
}

// CheckTieredTruth runs verify on the run's log dirs and remote roots
// and holds it to the truth.
func CheckTieredTruth(t *testing.T, dir string, truth *realkafka.Truth) {
	var paths []string
	for _, b := range truth.Brokers {
		paths = append(paths, filepath.Join(dir, filepath.FromSlash(b.LogDir)))
	}
	for _, r := range truth.RemoteRoots {
		paths = append(paths, filepath.Join(dir, filepath.FromSlash(r)))
	}
	out, errs, code := scanCmd(t, append([]string{"verify", "--json", "--progress", "never"}, paths...)...)
	if code != exitOK && code != exitFindings {
		t.Fatalf("verify: exit %d\n%s", code, errs)
	}
	var lines []tieredLine
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var l tieredLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	lost := checkTieredGaps(t, truth, lines)
	checkDeletedDirs(t, truth, lines)
	checkTieredFindings(t, truth, lines, lost)
	checkTieredReplicas(t, paths, lines)
}

// lostCopies matches the count of copies that lost offsets in a
// command's summary line.
var lostCopies = regexp.MustCompile(`(\d+) partition cop(?:y|ies) lost offsets`)

// checkTieredReplicas: replicas, which decodes no records but those of
// __remote_log_metadata, judges the same inputs' copies as verify does:
// as many lost offsets (none on clean tiering, where the offsets only in
// remote storage are held, not lost).
func checkTieredReplicas(t *testing.T, paths []string, lines []tieredLine) {
	want := 0
	for _, l := range lines {
		if l.Type == "partition" && l.State == "lost" {
			want++
		}
	}
	out, errs, code := scanCmd(t, append([]string{"replicas", "--progress", "never"}, paths...)...)
	if code != exitOK && code != exitFindings {
		t.Fatalf("replicas: exit %d\n%s", code, errs)
	}
	got := 0
	if m := lostCopies.FindStringSubmatch(strings.Join(strings.Fields(out), " ")); m != nil {
		got, _ = strconv.Atoi(m[1])
	}
	t.Logf("copies that lost offsets: per replicas %d, per verify %d", got, want)
	if got != want {
		t.Errorf("replicas counts %d partition copies that lost offsets, verify %d:\n%s", got, want, out)
	}
}

// checkTieredGaps compares verify's gaps with the truth: what is lost
// above a note, merged where adjacent, must be the truth's lost ranges
// but retention; the truth's retention must be retention notes; a
// deleted topic has nothing lost (deletedTopicGap). It returns verify's
// lost ranges.
func checkTieredGaps(t *testing.T, truth *realkafka.Truth, lines []tieredLine) []tieredSpan {
	var want, retained, got []tieredSpan
	for _, l := range truth.Lost {
		s := tieredSpan{Topic: l.Topic, Partition: l.Partition, First: l.FirstOffset, Last: l.LastOffset, Why: l.Why}
		if l.Why == "retention" {
			retained = append(retained, s)
		} else {
			want = append(want, s)
		}
	}
	var notes []tieredSpan
	for _, l := range lines {
		if l.Type != "gap" || deletedTopicGap(t, truth, l) {
			continue
		}
		s := tieredSpan{Topic: l.Topic, Partition: l.Partition, First: l.First, Last: l.Last, Why: l.Cause}
		if l.Severity == "note" {
			notes = append(notes, s)
			continue
		}
		got = append(got, s)
	}
	want, got = mergeSpans(want), mergeSpans(got)
	t.Logf("lost per the truth %v; per verify %v; retention per the truth %v", want, got, retained)
	want = knownTruncatedPrefix(t, truth, want, got)
	if !slices.EqualFunc(want, got, sameSpan) {
		t.Errorf("verify's lost ranges %v, the truth's %v", got, want)
	}
	for _, r := range retained {
		if !slices.ContainsFunc(notes, func(n tieredSpan) bool { return sameSpan(n, r) && n.Why == "retention" }) {
			t.Errorf("the truth's retention %v is not one retention note of verify: notes %v", r, notes)
		}
	}
	return got
}

// deletedTopicGap reports whether a gap is of a topic the scenario
// deleted, and holds it to that: nothing of such a topic is lost. Kafka
// 4.4 may leave a deleted tiered topic's partition dir renamed
// <partition>.<id>-delete past the stop, its remote segments deleted;
// what that dir lacks is a note (checkDeletedDirs holds its verdict).
func deletedTopicGap(t *testing.T, truth *realkafka.Truth, l tieredLine) bool {
	if !slices.Contains(truth.DeletedTopics, l.Topic) {
		return false
	}
	if l.Severity != "note" {
		t.Errorf("deleted topic %s: %s gap %d..%d in %s (%s)", l.Topic, l.Severity, l.First, l.Last, l.Dir, l.Cause)
	}
	return true
}

// checkDeletedDirs: a partition dir of a deleted topic that the broker
// renamed for deletion is judged as one, deleted and awaiting removal,
// with nothing lost; a deleted topic has no live partition copy left.
func checkDeletedDirs(t *testing.T, truth *realkafka.Truth, lines []tieredLine) {
	for _, l := range lines {
		if l.Type != "partition" || !slices.Contains(truth.DeletedTopics, l.Topic) {
			continue
		}
		t.Logf("deleted topic %s: %s: %s (lost %d)", l.Topic, l.Dir, l.State, l.Lost)
		if !strings.HasSuffix(l.Dir, "-delete") || l.State != "deleted" || l.Lost != 0 {
			t.Errorf("deleted topic %s: partition copy %s is %q with %d offsets lost, want a -delete dir, deleted, nothing lost",
				l.Topic, l.Dir, l.State, l.Lost)
		}
	}
}

// knownTruncatedPrefix: verify counts the batches of a truncated remote
// segment before the cut lost with its damaged tail, as its docs say
// (remote-segment-damaged: "those offsets are not held remotely"), while
// they are intact in the store. The truth's range that starts inside such
// a segment is widened to the segment's start for the comparison, and
// the difference is a known issue.
func knownTruncatedPrefix(t *testing.T, truth *realkafka.Truth, want, got []tieredSpan) []tieredSpan {
	out := slices.Clone(want)
	for _, r := range truth.RemoteSegments {
		if r.Harm != realkafka.RemoteTruncated {
			continue
		}
		for i, w := range out {
			wide := w
			wide.First = r.StartOffset
			if w.Topic == r.Topic && w.Partition == r.Partition && w.First > r.StartOffset &&
				slices.ContainsFunc(got, func(g tieredSpan) bool { return sameSpan(g, wide) }) {
				knownIssue(t, "verify counts %s-%d %d..%d lost: the batches of truncated remote segment %s before its cut, "+
					"intact in the store, beside the truth's %d..%d", r.Topic, r.Partition, r.StartOffset, w.First-1,
					r.SegmentID, w.First, w.Last)
				out[i] = wide
			}
		}
	}
	return out
}

// checkTieredFindings holds verify's findings above a note to the truth:
// each harmed remote segment gets exactly the finding its harm owes, on
// its own file; a gap's own finding must lie in a lost range that
// checkTieredGaps held to the truth; a finding on a harmed segment's file is the reader's account of
// its damage; anything else is false.
func checkTieredFindings(t *testing.T, truth *realkafka.Truth, lines []tieredLine, lost []tieredSpan) {
	owed := map[string]int{}
	for _, l := range lines {
		if l.Type != "finding" || l.Severity == "note" {
			continue
		}
		i := slices.IndexFunc(truth.RemoteSegments, func(r realkafka.TruthRemoteSegment) bool {
			return strings.HasSuffix(filepath.ToSlash(l.File), r.File)
		})
		switch {
		case i >= 0 && l.Kind == remoteFindingOf[truth.RemoteSegments[i].Harm]:
			owed[truth.RemoteSegments[i].SegmentID]++
		case i >= 0 && !strings.HasPrefix(l.Kind, "remote-"):
			t.Logf("the reader on harmed segment %s: %s %s: %s", truth.RemoteSegments[i].SegmentID, l.Severity, l.Kind, l.Message)
		case i < 0 && l.Offset != nil && slices.ContainsFunc(lost, func(s tieredSpan) bool { return s.First <= *l.Offset && *l.Offset <= s.Last }):
			t.Logf("a lost range's own finding: %s %s: %s", l.Severity, l.Kind, l.Message)
		default:
			t.Errorf("false finding: %s: %s %s: %s", l.File, l.Severity, l.Kind, l.Message)
		}
	}
	for _, r := range truth.RemoteSegments {
		if n := owed[r.SegmentID]; n != 1 {
			t.Errorf("remote segment %s (%s, offset %d): %d %s findings, want 1", r.SegmentID, r.Harm, r.StartOffset, n, remoteFindingOf[r.Harm])
		}
	}
}

// mergeSpans sorts spans and joins those of a partition that touch.
func mergeSpans(in []tieredSpan) []tieredSpan {
	slices.SortFunc(in, func(a, b tieredSpan) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.First, b.First))
	})
	var out []tieredSpan
	for _, s := range in {
		if n := len(out); n > 0 && out[n-1].Topic == s.Topic && out[n-1].Partition == s.Partition && out[n-1].Last+1 >= s.First {
			out[n-1].Last = max(out[n-1].Last, s.Last)
			out[n-1].Why += "+" + s.Why
			continue
		}
		out = append(out, s)
	}
	return out
}

func sameSpan(a, b tieredSpan) bool {
	return a.Topic == b.Topic && a.Partition == b.Partition && a.First == b.First && a.Last == b.Last
}
