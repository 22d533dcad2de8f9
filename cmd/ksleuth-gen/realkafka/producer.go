package realkafka

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed java/KsleuthProducer.java
var producerSource []byte

//go:embed java/KsleuthPipeline.java
var pipelineSource []byte

// producerClasses compiles KsleuthProducer.java and KsleuthPipeline.java
// against the release's kafka-clients jar once per version of the
// sources, into the release's cache.
func (k *Kafka) producerClasses() (string, error) {
	sources := map[string][]byte{"KsleuthProducer.java": producerSource, "KsleuthPipeline.java": pipelineSource}
	sum := sha256.Sum256(slices.Concat(producerSource, pipelineSource))
	dir := filepath.Join(k.Dir, "classes", hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, "KsleuthPipeline.class")); err == nil {
		return dir, nil
	}
	tmp, err := os.MkdirTemp(k.Dir, "javac-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	args := []string{"-nowarn", "-cp", k.Classpath(), "-d", tmp}
	for _, name := range slices.Sorted(maps.Keys(sources)) {
		src := filepath.Join(tmp, name)
		if err := os.WriteFile(src, sources[name], 0o644); err != nil {
			return "", err
		}
		args = append(args, src)
	}
	out, err := exec.Command("javac", args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("javac %s: %v\n%s", strings.Join(slices.Sorted(maps.Keys(sources)), " "), err, out)
	}
	for name := range sources {
		os.Remove(filepath.Join(tmp, name))
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	// Another process may have compiled it meanwhile; either copy is good.
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "KsleuthPipeline.class")); serr != nil {
			return "", err
		}
	}
	return dir, nil
}

// Ack is the broker's answer to one send.
type Ack struct {
	Partition int32
	Offset    int64
	Err       string
}

// JavaProducer is one KsleuthProducer process: one KafkaProducer
// instance. Kill it to simulate an application crash.
type JavaProducer struct {
	Name string
	p    *proc
	in   *bufio.Writer
	mu   sync.Mutex
	acks map[string]Ack
	// replies carries "ok CMD" and "fail CMD ..." lines.
	replies chan string
}

// StartProducer starts a Java producer with the given client properties.
func (e *Env) StartProducer(name string, props map[string]string) (*JavaProducer, error) {
	return e.startProducer(name, nil, props)
}

// startJavaApp starts one of the harness's Java programs (class) with
// args, its stdin and stdout piped to the caller and its stderr written
// to stderrPath: the producer and the pipeline application are both
// driven line by line over these pipes.
func (e *Env) startJavaApp(label, class, stderrPath string, args []string) (p *proc, stdin io.WriteCloser, stdout io.ReadCloser, err error) {
	classes, err := e.Kafka.producerClasses()
	if err != nil {
		return nil, nil, nil, err
	}
	cmd := e.javaCmd("128m", e.Kafka.Classpath(classes), []string{"-XX:ActiveProcessorCount=1"}, class, args...)
	if stdin, err = cmd.StdinPipe(); err != nil {
		return nil, nil, nil, err
	}
	if stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, nil, nil, err
	}
	errf, err := os.Create(stderrPath)
	if err != nil {
		return nil, nil, nil, err
	}
	cmd.Stderr = errf
	p, err = e.start(label, cmd)
	errf.Close()
	return p, stdin, stdout, err
}

// startProducer starts KsleuthProducer with its leading arguments (a
// mode) and the client properties.
func (e *Env) startProducer(name string, lead []string, props map[string]string) (*JavaProducer, error) {
	args := slices.Clone(lead)
	for _, k := range slices.Sorted(maps.Keys(props)) {
		args = append(args, k+"="+props[k])
	}
	p, stdin, stdout, err := e.startJavaApp("producer "+name, "KsleuthProducer", filepath.Join(e.Dir, "work", "producer-"+name+".log"), args)
	if err != nil {
		return nil, err
	}
	jp := &JavaProducer{Name: name, p: p, in: bufio.NewWriterSize(stdin, 1<<20), acks: map[string]Ack{}, replies: make(chan string, 16)}
	go jp.read(bufio.NewScanner(stdout))
	return jp, nil
}

func (jp *JavaProducer) read(sc *bufio.Scanner) {
	defer close(jp.replies)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 4)
		switch f[0] {
		case "ack":
			if len(f) == 4 {
				part, _ := strconv.ParseInt(f[2], 10, 32)
				off, _ := strconv.ParseInt(f[3], 10, 64)
				jp.mu.Lock()
				jp.acks[f[1]] = Ack{Partition: int32(part), Offset: off}
				jp.mu.Unlock()
			}
		case "nack":
			msg := ""
			if len(f) > 2 {
				msg = strings.Join(f[2:], " ")
			}
			jp.mu.Lock()
			jp.acks[f[1]] = Ack{Partition: -1, Offset: -1, Err: msg}
			jp.mu.Unlock()
		default:
			jp.replies <- sc.Text()
		}
	}
}

// Header is one record header.
type Header struct {
	Key   string
	Value []byte
}

func hexOrDash(b []byte) string {
	if b == nil {
		return "-"
	}
	if len(b) == 0 {
		return ""
	}
	return hex.EncodeToString(b)
}

// Send queues an asynchronous send; its ack arrives later (Acks).
func (jp *JavaProducer) Send(id, topic string, partition int32, key, value []byte, headers []Header) error {
	var s strings.Builder
	fmt.Fprintf(&s, "send %s %s %d %s %s", id, topic, partition, hexOrDash(key), hexOrDash(value))
	for _, h := range headers {
		fmt.Fprintf(&s, " %s=%s", h.Key, hexOrDash(h.Value))
	}
	s.WriteByte('\n')
	if _, err := jp.in.WriteString(s.String()); err != nil {
		return err
	}
	return nil
}

// Do runs a synchronous command (init, begin, commit, abort, flush, close)
// and waits for its reply.
func (jp *JavaProducer) Do(cmd string, timeout time.Duration) error {
	if _, err := jp.in.WriteString(cmd + "\n"); err != nil {
		return err
	}
	if err := jp.in.Flush(); err != nil {
		return err
	}
	select {
	case line, ok := <-jp.replies:
		if !ok {
			return fmt.Errorf("producer %s exited during %s: %v", jp.Name, cmd, jp.p.err)
		}
		if line != "ok "+cmd {
			return fmt.Errorf("producer %s: %s", jp.Name, line)
		}
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("producer %s: %s timed out after %v", jp.Name, cmd, timeout)
	}
}

// Flush sends queued commands to the process without waiting.
func (jp *JavaProducer) Flush() error { return jp.in.Flush() }

// Acks is a copy of the acks received so far, by send id.
func (jp *JavaProducer) Acks() map[string]Ack {
	jp.mu.Lock()
	defer jp.mu.Unlock()
	return maps.Clone(jp.acks)
}

// AckCount is how many sends have been answered.
func (jp *JavaProducer) AckCount() int {
	jp.mu.Lock()
	defer jp.mu.Unlock()
	return len(jp.acks)
}

// WaitAcks waits until n sends are answered.
func (jp *JavaProducer) WaitAcks(n int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for jp.AckCount() < n {
		if !jp.p.running() {
			return fmt.Errorf("producer %s exited with %d of %d acks: %v", jp.Name, jp.AckCount(), n, jp.p.err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("producer %s: %d of %d acks after %v", jp.Name, jp.AckCount(), n, timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// Kill SIGKILLs the producer process: whatever it had not had acked is
// in flight or lost, as in an application crash.
func (jp *JavaProducer) Kill() {
	jp.p.kill()
}

// Close closes the producer cleanly (flushing what it holds).
func (jp *JavaProducer) Close() error {
	err := jp.Do("close", 60*time.Second)
	select {
	case <-jp.p.done:
	case <-time.After(30 * time.Second):
		jp.p.kill()
	}
	return err
}
