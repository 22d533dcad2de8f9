package realkafka

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Cluster is a set of KRaft brokers, each in combined mode (broker and
// controller in one JVM), all of them voters.
type Cluster struct {
	env       *Env
	ClusterID string
	Brokers   []*Broker
	// Controller is the dedicated KRaft controller when the brokers are
	// not controllers themselves (killing brokers then leaves the quorum
	// up); nil in combined mode.
	Controller *Broker
}

// ControllerID is the node id of a dedicated controller.
const ControllerID = 100

// All lists the brokers, then the dedicated controller if any.
func (c *Cluster) All() []*Broker {
	if c.Controller != nil {
		return append(slices.Clone(c.Brokers), c.Controller)
	}
	return c.Brokers
}

// Broker is one node.
type Broker struct {
	c      *Cluster
	NodeID int
	// Root is DIR/broker-<id>; LogDir (Root/data) is the broker's
	// log.dirs and Logs (Root/logs) its log4j output.
	Root, LogDir, Logs string
	Port, CtrlPort     int
	config             string
	proc               *proc
}

// BrokerHeap is the broker JVM's -Xmx.
const BrokerHeap = "384m"

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// clusterID is a random Kafka Uuid in its base64 form.
func clusterID() string {
	var b [16]byte
	rand.Read(b[:])
	b[0] &= 0x7f // keep clear of the reserved negative-looking ids
	b[0] |= 0x01
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// NewCluster formats n brokers (node ids 1..n) with server properties
// overrides over the harness defaults, starts them and waits until all
// are registered and serving. With dedicated, a controller-only node
// (ControllerID) holds the quorum and the brokers are brokers only;
// otherwise every node is broker and controller.
func (e *Env) NewCluster(ctx context.Context, n int, dedicated bool, overrides map[string]string) (*Cluster, error) {
	c := &Cluster{env: e, ClusterID: clusterID()}
	ids := make([]int, 0, n+1)
	for id := 1; id <= n; id++ {
		ids = append(ids, id)
	}
	if dedicated {
		ids = append(ids, ControllerID)
	}
	for _, id := range ids {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		cp, err := freePort()
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("broker-%d", id)
		if id == ControllerID {
			name = fmt.Sprintf("controller-%d", id)
		}
		root := filepath.Join(e.Dir, name)
		b := &Broker{c: c, NodeID: id, Root: root, LogDir: filepath.Join(root, "data"), Logs: filepath.Join(root, "logs"),
			Port: p, CtrlPort: cp, config: filepath.Join(e.Dir, "work", name+".properties")}
		if id == ControllerID {
			c.Controller = b
		} else {
			c.Brokers = append(c.Brokers, b)
		}
	}
	var voters []string
	for _, b := range c.All() {
		if !dedicated || b == c.Controller {
			voters = append(voters, fmt.Sprintf("%d@127.0.0.1:%d", b.NodeID, b.CtrlPort))
		}
	}
	rf := min(n, 3)
	for _, b := range c.All() {
		roles := "broker,controller"
		listeners := fmt.Sprintf("PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d", b.Port, b.CtrlPort)
		switch {
		case b == c.Controller:
			roles, listeners = "controller", fmt.Sprintf("CONTROLLER://127.0.0.1:%d", b.CtrlPort)
		case dedicated:
			roles, listeners = "broker", fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", b.Port)
		}
		props := map[string]string{
			"process.roles":                            roles,
			"node.id":                                  fmt.Sprint(b.NodeID),
			"controller.quorum.voters":                 strings.Join(voters, ","),
			"listeners":                                listeners,
			"advertised.listeners":                     fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", b.Port),
			"controller.listener.names":                "CONTROLLER",
			"listener.security.protocol.map":           "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
			"inter.broker.listener.name":               "PLAINTEXT",
			"log.dirs":                                 b.LogDir,
			"num.network.threads":                      "1",
			"num.io.threads":                           "2",
			"background.threads":                       "2",
			"num.replica.fetchers":                     "1",
			"num.recovery.threads.per.data.dir":        "1",
			"log.cleaner.threads":                      "1",
			"log.cleaner.dedupe.buffer.size":           fmt.Sprint(8 << 20),
			"log.cleaner.io.buffer.size":               fmt.Sprint(64 << 10),
			"log.cleaner.backoff.ms":                   "1000",
			"offsets.topic.replication.factor":         fmt.Sprint(rf),
			"offsets.topic.num.partitions":             "2",
			"transaction.state.log.replication.factor": fmt.Sprint(rf),
			"transaction.state.log.min.isr":            "1",
			"transaction.state.log.num.partitions":     "2",
			"group.initial.rebalance.delay.ms":         "0",
			"auto.create.topics.enable":                "false",
			"num.partitions":                           "1",
			"default.replication.factor":               fmt.Sprint(rf),
		}
		if !e.Kafka.Log4j1() {
			props["share.coordinator.state.topic.replication.factor"] = fmt.Sprint(rf)
			props["share.coordinator.state.topic.min.isr"] = "1"
		}
		if b == c.Controller {
			delete(props, "advertised.listeners")
			delete(props, "inter.broker.listener.name")
		}
		maps.Copy(props, overrides)
		if err := b.writeConfig(props); err != nil {
			return nil, err
		}
		if err := b.format(); err != nil {
			return nil, err
		}
	}
	for _, b := range c.All() {
		if err := b.Start(); err != nil {
			return nil, err
		}
	}
	return c, c.WaitReady(ctx, c.Brokers...)
}

func (b *Broker) writeConfig(props map[string]string) error {
	if err := os.MkdirAll(filepath.Dir(b.config), 0o755); err != nil {
		return err
	}
	for _, d := range []string{b.LogDir, b.Logs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	var s strings.Builder
	for _, k := range slices.Sorted(maps.Keys(props)) {
		fmt.Fprintf(&s, "%s=%s\n", k, props[k])
	}
	if err := os.WriteFile(b.config, []byte(s.String()), 0o644); err != nil {
		return err
	}
	return writeLogConfig(b.c.env.Kafka, filepath.Join(filepath.Dir(b.config), fmt.Sprintf("log-%d", b.NodeID)))
}

func (b *Broker) logConfigArgs() []string {
	base := filepath.Join(filepath.Dir(b.config), fmt.Sprintf("log-%d", b.NodeID))
	args := []string{"-Dkafka.logs.dir=" + b.Logs}
	if b.c.env.Kafka.Log4j1() {
		return append(args, "-Dlog4j.configuration=file:"+base+".properties")
	}
	return append(args, "-Dlog4j2.configurationFile="+base+".xml")
}

// format runs StorageTool format on the broker's log dir.
func (b *Broker) format() error {
	e := b.c.env
	cmd := e.javaCmd("256m", e.Kafka.Classpath(), b.logConfigArgs(), "kafka.tools.StorageTool",
		"format", "-t", b.c.ClusterID, "-c", b.config)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("format broker %d: %v\n%s", b.NodeID, err, out)
	}
	return nil
}

// Start starts the broker JVM (again, after Stop or Kill: a restart).
func (b *Broker) Start() error {
	if b.proc != nil && b.proc.running() {
		return fmt.Errorf("broker %d is running", b.NodeID)
	}
	e := b.c.env
	jvm := append(b.logConfigArgs(), "-XX:ActiveProcessorCount=2", "-XX:MaxDirectMemorySize=128m")
	cmd := e.javaCmd(BrokerHeap, e.Kafka.Classpath(e.brokerCP...), jvm, "kafka.Kafka", b.config)
	out, err := os.OpenFile(filepath.Join(b.Logs, "kafkaServer.out"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = out, out
	p, err := e.start(fmt.Sprintf("broker %d", b.NodeID), cmd)
	out.Close()
	if err != nil {
		return err
	}
	b.proc = p
	e.Logf("broker %d started (pid %d, port %d)", b.NodeID, cmd.Process.Pid, b.Port)
	return nil
}

// Running reports whether the broker's JVM is alive.
func (b *Broker) Running() bool { return b.proc != nil && b.proc.running() }

// Stop shuts the broker down cleanly (SIGTERM) and waits; after 90s it
// is killed and Stop fails.
func (b *Broker) Stop() error {
	if !b.Running() {
		return nil
	}
	if b.proc.signal(sigTerm, 90*time.Second) {
		b.c.env.Logf("broker %d stopped", b.NodeID)
		return nil
	}
	b.proc.kill()
	return fmt.Errorf("broker %d did not stop within 90s of SIGTERM; killed", b.NodeID)
}

// Kill kills the broker with SIGKILL, as a crash would.
func (b *Broker) Kill() {
	if b.Running() {
		b.proc.kill()
		b.c.env.Logf("broker %d killed", b.NodeID)
	}
}

// Addr is the broker's client address.
func (b *Broker) Addr() string { return fmt.Sprintf("127.0.0.1:%d", b.Port) }

// Bootstrap lists the client addresses of the running brokers.
func (c *Cluster) Bootstrap() []string {
	var out []string
	for _, b := range c.Brokers {
		if b.Running() {
			out = append(out, b.Addr())
		}
	}
	return out
}

// BootstrapString is Bootstrap comma-separated, for bootstrap.servers.
func (c *Cluster) BootstrapString() string { return strings.Join(c.Bootstrap(), ",") }

// Stop stops every running broker cleanly, the controller last.
func (c *Cluster) Stop() error {
	var first error
	for _, b := range c.All() {
		if err := b.Stop(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// WaitReady waits until each of bs answers metadata requests and the
// cluster's metadata lists it, or ctx ends, or a broker exits.
func (c *Cluster) WaitReady(ctx context.Context, bs ...*Broker) error {
	ctx, cancel := context.WithTimeout(ctx, 120*time.Second)
	defer cancel()
	for _, b := range bs {
		cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.RetryTimeout(time.Second))
		if err != nil {
			return err
		}
		for {
			if !b.Running() {
				cl.Close()
				return fmt.Errorf("broker %d exited while starting: %v\n%s", b.NodeID, b.proc.err, b.tail())
			}
			req := kmsg.NewPtrMetadataRequest()
			rctx, rcancel := context.WithTimeout(ctx, 2*time.Second)
			resp, err := req.RequestWith(rctx, cl)
			rcancel()
			if err == nil && resp.ControllerID >= 0 && slices.ContainsFunc(resp.Brokers, func(m kmsg.MetadataResponseBroker) bool {
				return int(m.NodeID) == b.NodeID
			}) {
				break
			}
			select {
			case <-ctx.Done():
				cl.Close()
				return fmt.Errorf("broker %d not ready: %v (last error %v)\n%s", b.NodeID, ctx.Err(), err, b.tail())
			case <-time.After(200 * time.Millisecond):
			}
		}
		cl.Close()
	}
	return nil
}

// tail is the end of the broker's server.log, for error messages.
func (b *Broker) tail() string {
	data, _ := os.ReadFile(filepath.Join(b.Logs, "server.log"))
	if out, _ := os.ReadFile(filepath.Join(b.Logs, "kafkaServer.out")); len(out) > 0 {
		data = append(data, out...)
	}
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return string(data)
}
