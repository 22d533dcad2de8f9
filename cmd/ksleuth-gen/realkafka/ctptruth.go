package realkafka

import (
	"bufio"
	"cmp"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Resend kinds of a consume-transform-produce application, which writes
// an output again because it read its input again.
const (
	// KindReprocess: an instance died after producing a batch's outputs
	// and before committing its input offsets; the next instance (a new
	// producer) re-read the batch from the last commit and produced them
	// again.
	KindReprocess = "reprocess"
	// KindRebalance: an instance stalled past the group's session and
	// poll interval while it held a batch; the group gave its partitions
	// to another live instance, which processed the batch from the last
	// commit, and the stalled one produced it too when it went on.
	KindRebalance = "rebalance"
)

// pipelineOut is one output an instance's log reports acknowledged, with
// the input record it was produced from.
type pipelineOut struct {
	app        *PipelineApp
	in, out    Loc
	key, value []byte
}

// pipelineTruth reads the instances' own logs into the truth: what each
// group member read (consumed) and every commit it sent and whether it
// was taken, in the order of the logs' times, and every output; an output
// produced again for an input an earlier copy was produced from is a
// resend of kind. The outputs are noted as acknowledged sends, so that
// the read-back checks them (App.truth), and the later copies are kept
// apart to be compared with what the read-back finds.
func (s *Session) pipelineTruth(kind, input, output string, apps ...*PipelineApp) error {
	contents := s.App.ackedContents(input)
	byInput := map[Loc][]pipelineOut{}
	var consumed, commits []stamped
	for _, a := range apps {
		l, err := s.readPipelineLog(a, input, contents)
		if err != nil {
			return err
		}
		for _, o := range l.outs {
			byInput[o.in] = append(byInput[o.in], o)
		}
		consumed, commits = append(consumed, l.consumed...), append(commits, l.commits...)
	}
	byTime := func(x, y stamped) int { return cmp.Compare(x.ms, y.ms) }
	slices.SortStableFunc(consumed, byTime)
	slices.SortStableFunc(commits, byTime)
	s.App.mu.Lock()
	for _, c := range consumed {
		s.App.consumed = append(s.App.consumed, c.consumed)
	}
	for _, c := range commits {
		s.App.commits = append(s.App.commits, c.commit)
	}
	s.App.mu.Unlock()
	later := 0
	for _, in := range slices.SortedFunc(maps.Keys(byInput), cmpLoc) {
		copies := byInput[in]
		slices.SortFunc(copies, func(x, y pipelineOut) int { return cmp.Compare(x.out.Offset, y.out.Offset) })
		for i, o := range copies {
			if o.out.Partition != copies[0].out.Partition {
				return fmt.Errorf("input %s-%d@%d: outputs in partitions %d and %d", in.Topic, in.Partition, in.Offset,
					copies[0].out.Partition, o.out.Partition)
			}
			k := ""
			if i > 0 {
				k = kind
				later++
			}
			r := Record{Msg: fmt.Sprintf("out:%s-%d@%d", in.Topic, in.Partition, in.Offset), Topic: output,
				Partition: o.out.Partition, Key: o.key, Value: o.value}
			if err := s.App.notePipelineOutput(o.app.Name, r, k, o.app.Group, o.in, o.out); err != nil {
				return err
			}
		}
	}
	s.Logf("pipeline truth: %d inputs produced, %d later copies (%s) by the apps' logs", len(byInput), later, kind)
	return nil
}

// stamped is a record read or a partition's commit, at the time of its log
// line.
type stamped struct {
	ms       int64
	consumed TruthConsumed
	commit   TruthCommit
}

// pipelineLog is what one instance's log says.
type pipelineLog struct {
	outs              []pipelineOut
	consumed, commits []stamped
}

// readPipelineLog parses one instance's log.
func (s *Session) readPipelineLog(a *PipelineApp, input string, contents map[Loc]string) (*pipelineLog, error) {
	f, err := os.Open(a.Log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := &pipelineLog{}
	var pending []stamped
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		bad := func(err error) error { return fmt.Errorf("%s:%d: %q: %v", a.Log, n, line, err) }
		ts, rest, _ := strings.Cut(line, " ")
		ms, err := strconv.ParseInt(ts, 10, 64)
		if err != nil {
			return nil, bad(err)
		}
		fl := strings.Fields(rest)
		switch {
		case len(fl) == 3 && fl[0] == "in":
			l, err := parseLoc(input, fl[1], fl[2])
			if err != nil {
				return nil, bad(err)
			}
			c, ok := contents[l]
			if !ok {
				return nil, bad(errors.New("an input record the scenario's producer had no ack for"))
			}
			out.consumed = append(out.consumed, stamped{ms: ms, consumed: TruthConsumed{Group: a.Group, Topic: input,
				Partition: l.Partition, Offset: l.Offset, content: c}})
		case len(fl) == 7 && fl[0] == "out":
			o, err := parseOut(input, fl)
			if err != nil {
				return nil, bad(err)
			}
			o.app = a
			out.outs = append(out.outs, o)
		case len(fl) > 0 && fl[0] == "nack":
			return nil, bad(errors.New("an output failed"))
		case len(fl) == 4 && fl[0] == "commit":
			l, err1 := parseLoc(input, fl[1], fl[2])
			epoch, err2 := strconv.ParseInt(fl[3], 10, 32)
			if err := cmp.Or(err1, err2); err != nil {
				return nil, bad(err)
			}
			pending = append(pending, stamped{ms: ms, commit: TruthCommit{Group: a.Group, Topic: input, Partition: l.Partition,
				Offset: l.Offset, LeaderEpoch: int32(epoch)}})
		case len(fl) >= 2 && fl[1] == "commit":
			for i := range pending {
				pending[i].commit.Acked = fl[0] == "ok"
			}
			out.commits, pending = append(out.commits, pending...), nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	// A commit the instance was killed in has no answer.
	out.commits = append(out.commits, pending...)
	return out, nil
}

func parseLoc(topic, p, o string) (Loc, error) {
	pi, err := strconv.ParseInt(p, 10, 32)
	if err != nil {
		return Loc{}, err
	}
	oi, err := strconv.ParseInt(o, 10, 64)
	return Loc{Topic: topic, Partition: int32(pi), Offset: oi}, err
}

// parseOut parses "out P OFFSET OUTP OUTOFFSET KEYHEX|- VALUEHEX".
func parseOut(input string, fl []string) (pipelineOut, error) {
	in, err := parseLoc(input, fl[1], fl[2])
	if err != nil {
		return pipelineOut{}, err
	}
	out, err := parseLoc("", fl[3], fl[4])
	if err != nil {
		return pipelineOut{}, err
	}
	var key []byte
	if fl[5] != "-" {
		if key, err = hex.DecodeString(fl[5]); err != nil {
			return pipelineOut{}, err
		}
	}
	value, err := hex.DecodeString(fl[6])
	return pipelineOut{in: in, out: out, key: key, value: value}, err
}

// ackedContents is the content of every acknowledged send to topic, by
// the offset the broker gave it.
func (a *App) ackedContents(topic string) map[Loc]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[Loc]string{}
	for _, s := range a.sends {
		if s.Acked && s.Topic == topic {
			out[Loc{topic, s.Ack.Partition, s.Ack.Offset}] = a.msgs[s.Msg].content
		}
	}
	return out
}

// sentTo counts the sends to topic so far: the next input record's number.
func (a *App) sentTo(topic string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, s := range a.sends {
		if s.Topic == topic {
			n++
		}
	}
	return n
}

// notePipelineOutput notes an output an application instance's log
// reports acknowledged at out; a later copy (kind set) is also kept in
// logCopies.
func (a *App) notePipelineOutput(producer string, r Record, kind, group string, in, out Loc) error {
	sent, err := a.note(producer, r, kind)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	sent.Acked, sent.Ack = true, Ack{Partition: out.Partition, Offset: out.Offset}
	m := a.msgs[r.Msg]
	m.group, m.input = group, &in
	if kind != "" {
		if a.logCopies == nil {
			a.logCopies = map[Loc]string{}
		}
		a.logCopies[Loc{r.Topic, out.Partition, out.Offset}] = kind
	}
	return nil
}

// checkLogCopies holds the later copies the read-back found among the
// applications' outputs to those their logs report.
func (a *App) checkLogCopies(resends []TruthResend) error {
	if a.logCopies == nil {
		return nil
	}
	seen := 0
	for _, r := range resends {
		if r.Input == nil {
			continue
		}
		seen++
		if k := a.logCopies[Loc{r.Topic, r.Partition, r.Offset}]; k != r.Kind {
			return fmt.Errorf("%s-%d@%d: a later copy of %s in the log, the apps' logs say %q", r.Topic, r.Partition, r.Offset, r.Kind, k)
		}
	}
	if seen != len(a.logCopies) {
		return fmt.Errorf("the log holds %d later copies of the apps' outputs, their logs %d", seen, len(a.logCopies))
	}
	return nil
}
