package realkafka

import (
	"bufio"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PipelineApp is one KsleuthPipeline process: an instance of a
// consume-transform-produce application in a consumer group, driven step
// by step (poll, produce, commit) so that a scenario can kill or stop it
// between producing a batch and committing its input offsets. Its own log
// (Log) is the truth of what it read, produced and committed.
type PipelineApp struct {
	Name, Group string
	Log         string
	p           *proc
	in          *bufio.Writer
	replies     chan string

	mu sync.Mutex
	// assigned is the partitions the rebalance listener last reported;
	// committed the offsets of the commits the coordinator took.
	assigned  map[int32]bool
	committed map[int32]int64
	pending   map[int32]int64
}

// The application's group timeouts: short enough that the group moves a
// dead or stopped instance's partitions within seconds (6 s is the
// broker's smallest session timeout by default), long enough that a busy
// machine does not drop a live instance between two polls.
const (
	pipelineSession      = 6 * time.Second
	pipelinePollInterval = 10 * time.Second
)

// pipelineProps are an instance's client properties.
func (s *Session) pipelineProps(name, group string, maxPoll int) []string {
	props := map[string]string{
		"c.bootstrap.servers": s.Cluster.BootstrapString(), "c.group.id": group, "c.client.id": name,
		"c.auto.offset.reset": "earliest", "c.max.poll.records": fmt.Sprint(maxPoll),
		"c.session.timeout.ms": fmt.Sprint(pipelineSession.Milliseconds()), "c.heartbeat.interval.ms": "1000",
		"c.max.poll.interval.ms": fmt.Sprint(pipelinePollInterval.Milliseconds()),
		"c.fetch.max.wait.ms":    "200",
		"p.bootstrap.servers":    s.Cluster.BootstrapString(), "p.client.id": name, "p.enable.idempotence": "true",
		"p.acks": "all", "p.linger.ms": fmt.Sprint(s.Rand.IntN(15)), "p.compression.type": Codecs[s.Rand.IntN(len(Codecs))],
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(props)) {
		out = append(out, k+"="+props[k])
	}
	return out
}

// startPipeline starts an instance of the application reading input and
// writing output, as member of group.
func (s *Session) startPipeline(name, group, input, output string, maxPoll int) (*PipelineApp, error) {
	logPath := filepath.Join(s.Dir, "work", "pipeline-"+name+".log")
	args := append([]string{logPath, input, output}, s.pipelineProps(name, group, maxPoll)...)
	p, stdin, stdout, err := s.startJavaApp("pipeline "+name, "KsleuthPipeline", filepath.Join(s.Dir, "work", "pipeline-"+name+".stderr"), args)
	if err != nil {
		return nil, err
	}
	a := &PipelineApp{Name: name, Group: group, Log: logPath, p: p, in: bufio.NewWriter(stdin), replies: make(chan string, 16),
		assigned: map[int32]bool{}, committed: map[int32]int64{}, pending: map[int32]int64{}}
	go a.read(bufio.NewScanner(stdout))
	s.Logf("pipeline %s (group %s): %s -> %s", name, group, input, output)
	return a, nil
}

// read follows the application's log lines: assignments and commits for
// the scenario's waits, replies for do.
func (a *PipelineApp) read(sc *bufio.Scanner) {
	defer close(a.replies)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		_, line, _ := strings.Cut(sc.Text(), " ")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		a.mu.Lock()
		switch f[0] {
		case "assigned", "revoked", "lost":
			for _, p := range partitionList(f) {
				if f[0] == "assigned" {
					a.assigned[p] = true
				} else {
					delete(a.assigned, p)
				}
			}
		case "commit":
			if len(f) >= 3 {
				p, _ := strconv.ParseInt(f[1], 10, 32)
				o, _ := strconv.ParseInt(f[2], 10, 64)
				a.pending[int32(p)] = o
			}
		case "ok", "fail":
			if len(f) > 1 && f[1] == "commit" {
				if f[0] == "ok" {
					maps.Copy(a.committed, a.pending)
				}
				clear(a.pending)
			}
		}
		a.mu.Unlock()
		if f[0] == "ok" || f[0] == "fail" {
			a.replies <- line
		}
	}
}

// partitionList parses "assigned 0,2" (an empty list has no second field).
func partitionList(f []string) []int32 {
	if len(f) < 2 {
		return nil
	}
	var out []int32
	for _, x := range strings.Split(f[1], ",") {
		if p, err := strconv.ParseInt(x, 10, 32); err == nil {
			out = append(out, int32(p))
		}
	}
	return out
}

// do sends a command and waits for its reply: the words after "ok CMD",
// or an error with the reason after "fail CMD".
func (a *PipelineApp) do(cmd string, timeout time.Duration) (string, error) {
	if _, err := a.in.WriteString(cmd + "\n"); err != nil {
		return "", err
	}
	if err := a.in.Flush(); err != nil {
		return "", err
	}
	name := strings.Fields(cmd)[0]
	select {
	case line, ok := <-a.replies:
		if !ok {
			return "", fmt.Errorf("pipeline %s exited during %s: %v", a.Name, cmd, a.p.err)
		}
		if rest, ok := strings.CutPrefix(line, "ok "+name); ok {
			return strings.TrimSpace(rest), nil
		}
		return "", fmt.Errorf("pipeline %s: %s", a.Name, line)
	case <-time.After(timeout):
		return "", fmt.Errorf("pipeline %s: %s timed out after %v", a.Name, cmd, timeout)
	}
}

// Poll polls once, waiting up to wait, and returns how many records came.
func (a *PipelineApp) Poll(wait time.Duration) (int, error) {
	rest, err := a.do(fmt.Sprintf("poll %d", wait.Milliseconds()), wait+30*time.Second)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(rest)
}

// Produce writes the outputs of the next n records in hand (-1: all) and
// waits for their acks.
func (a *PipelineApp) Produce(n int) error {
	_, err := a.do(fmt.Sprintf("produce %d", n), ackWait)
	return err
}

// Commit commits the input offsets of the records in hand.
func (a *PipelineApp) Commit() error {
	_, err := a.do("commit", 60*time.Second)
	return err
}

// Close closes the consumer and the producer.
func (a *PipelineApp) Close() error {
	_, err := a.do("close", 60*time.Second)
	select {
	case <-a.p.done:
	case <-time.After(30 * time.Second):
		a.p.kill()
	}
	return err
}

// Kill SIGKILLs the instance, as a crash does.
func (a *PipelineApp) Kill() { a.p.kill() }

// Assigned is the partitions the instance holds, sorted.
func (a *PipelineApp) Assigned() []int32 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Sorted(maps.Keys(a.assigned))
}

// committedAt is the offset of the instance's last acknowledged commit of
// partition p, 0 when none.
func (a *PipelineApp) committedAt(p int32) int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.committed[p]
}

// Step polls once and, when records came, produces their outputs and
// commits: one turn of the application's loop.
func (a *PipelineApp) Step() (int, error) {
	n, err := a.Poll(300 * time.Millisecond)
	if err != nil || n == 0 {
		return n, err
	}
	if err := a.Produce(-1); err != nil {
		return n, err
	}
	return n, a.Commit()
}

// await polls cond until it holds, or fails after timeout.
func (s *Session) await(what string, timeout time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil || ok {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not after %v", what, timeout)
		}
		if err := s.Ctx.Err(); err != nil {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}
