package realkafka

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pipelineTestSession is a session with two input records acknowledged
// at orders-0@0 and orders-0@1, and no cluster: pipelineTruth reads only
// the apps' logs and the App.
func pipelineTestSession(t *testing.T) *Session {
	t.Helper()
	s := &Session{Env: &Env{Logf: t.Logf}, App: newApp()}
	for i := range 2 {
		r := Record{Msg: fmt.Sprintf("orders-%d", i), Topic: "orders", Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "v%d", i)}
		sent, err := s.App.note("feed", r, "")
		if err != nil {
			t.Fatal(err)
		}
		sent.Acked, sent.Ack = true, Ack{Partition: 0, Offset: int64(i)}
	}
	return s
}

func writePipelineLog(t *testing.T, dir, name string, lines ...string) *PipelineApp {
	t.Helper()
	path := filepath.Join(dir, name+".log")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return &PipelineApp{Name: name, Group: "g", Log: path}
}

func outLine(ms, in, at int) string {
	return fmt.Sprintf("%d out 0 %d 0 %d %s %s", ms, in, at, hex.EncodeToString(fmt.Appendf(nil, "k%d", in)),
		hex.EncodeToString(fmt.Appendf(nil, "shipped:v%d", in)))
}

// A first instance produces both outputs and commits only the first
// input; a second re-reads the second and produces it again, and its
// commit is refused. The second output's later copy is the resend, the
// commits are in time order across the logs with their answers, and what
// each read is consumed.
func TestPipelineTruthFromLogs(t *testing.T) {
	s := pipelineTestSession(t)
	dir := t.TempDir()
	first := writePipelineLog(t, dir, "app-1",
		"100 assigned 0", "110 in 0 0", "111 ok poll 1", outLine(120, 0, 0), "121 ok produce 1",
		"130 commit 0 1 0", "131 ok commit",
		"140 in 0 1", "141 ok poll 1", outLine(150, 1, 1), "151 ok produce 1")
	second := writePipelineLog(t, dir, "app-2",
		"200 assigned 0", "210 in 0 1", "211 ok poll 1", outLine(220, 1, 2), "221 ok produce 1",
		"230 commit 0 2 0", "231 fail commit CommitFailedException: gone")
	// Handed over in the other order, the logs' times still order the
	// commits and the offsets the copies.
	if err := s.pipelineTruth(KindReprocess, "orders", "shipments", second, first); err != nil {
		t.Fatal(err)
	}
	later := Loc{Topic: "shipments", Partition: 0, Offset: 2}
	if len(s.App.logCopies) != 1 || s.App.logCopies[later] != KindReprocess {
		t.Errorf("later copies %v, want only %v as %s", s.App.logCopies, later, KindReprocess)
	}
	m := s.App.msgs["out:orders-0@1"]
	if m == nil || m.kind != KindReprocess || m.group != "g" || m.input == nil || *m.input != (Loc{"orders", 0, 1}) {
		t.Errorf("the second output's message: %+v", m)
	}
	commits, consumed, _ := s.App.groupTruth()
	if len(commits) != 2 || !commits[0].Acked || commits[0].Offset != 1 || commits[1].Acked || commits[1].Offset != 2 {
		t.Errorf("commits %+v, want 1 taken then 2 refused", commits)
	}
	if len(consumed) != 3 {
		t.Errorf("consumed %+v, want 3 records read", consumed)
	}
	// The read-back finding the same later copy agrees; another does not.
	if err := s.App.checkLogCopies([]TruthResend{{Topic: "shipments", Offset: 2, Kind: KindReprocess, Input: &Loc{}}}); err != nil {
		t.Error(err)
	}
	if err := s.App.checkLogCopies([]TruthResend{{Topic: "shipments", Offset: 1, Kind: KindReprocess, Input: &Loc{}}}); err == nil {
		t.Error("a later copy the logs do not have passed")
	}
}

// An input the feed had no ack for, or an output the producer failed, is
// an error, not a truth.
func TestPipelineTruthRejects(t *testing.T) {
	for name, line := range map[string]string{"unknown input": "100 in 0 7", "nack": "100 nack 0 0 TimeoutException: x"} {
		s := pipelineTestSession(t)
		app := writePipelineLog(t, t.TempDir(), "app", line)
		if err := s.pipelineTruth(KindReprocess, "orders", "shipments", app); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
