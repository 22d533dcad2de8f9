package realkafka

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Env owns every process a scenario starts and the directory its brokers
// write under. Close stops whatever is still running; tests call it from
// t.Cleanup so that a failing test leaves no JVM behind.
type Env struct {
	Kafka *Kafka
	// Dir receives broker-<id>/data (the log dir), broker-<id>/logs
	// (log4j output) and work files.
	Dir  string
	Logf func(format string, args ...any)
	// brokerCP is put before the release's jars on the brokers' classpath
	// (the remote storage manager of tiered scenarios).
	brokerCP []string

	mu       sync.Mutex
	procs    []*proc
	cleanups []func()
}

// NewEnv prepares an environment writing under dir.
func NewEnv(k *Kafka, dir string, logf func(string, ...any)) (*Env, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &Env{Kafka: k, Dir: dir, Logf: logf}, nil
}

// Defer runs f at Close, in reverse order of registration.
func (e *Env) Defer(f func()) {
	e.mu.Lock()
	e.cleanups = append(e.cleanups, f)
	e.mu.Unlock()
}

// Close kills every process still running and runs the deferred
// functions.
func (e *Env) Close() {
	e.mu.Lock()
	procs, cleanups := e.procs, e.cleanups
	e.procs, e.cleanups = nil, nil
	e.mu.Unlock()
	for _, p := range procs {
		p.kill()
	}
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
}

// proc is one child process (a JVM) in a process group of its own.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	// tail keeps the last output of a process whose output is not
	// otherwise kept, for error messages.
	tail *tailBuffer
}

func (e *Env) start(name string, cmd *exec.Cmd) (*proc, error) {
	ownGroup(cmd)
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	if cmd.Stderr == nil {
		p.tail = &tailBuffer{max: 16 << 10}
		cmd.Stderr = p.tail
		if cmd.Stdout == nil {
			cmd.Stdout = p.tail
		}
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	e.mu.Lock()
	e.procs = append(e.procs, p)
	e.mu.Unlock()
	return p, nil
}

func (p *proc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// signal sends sig to the process group and waits up to wait for the exit.
func (p *proc) signal(sig syscall.Signal, wait time.Duration) bool {
	if !p.running() {
		return true
	}
	signalGroup(p.cmd, sig)
	select {
	case <-p.done:
		return true
	case <-time.After(wait):
		return false
	}
}

func (p *proc) kill() { p.signal(sigKill, 30*time.Second) }

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(b)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

var _ io.Writer = (*tailBuffer)(nil)

// javaCmd builds a java command for a main class on the release's
// classpath, with a small heap and one JIT tier: the machines running
// this have few cores and several JVMs at once.
func (e *Env) javaCmd(heap string, classpath string, jvmArgs []string, main string, args ...string) *exec.Cmd {
	a := []string{"-Xms64m", "-Xmx" + heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-XX:CICompilerCount=1", "-XX:-UsePerfData", "-Xshare:auto", "-Djava.awt.headless=true"}
	a = append(a, jvmArgs...)
	a = append(a, "-cp", classpath, main)
	a = append(a, args...)
	return exec.Command("java", a...)
}
