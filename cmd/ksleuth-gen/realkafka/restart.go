package realkafka

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
)

// Restarted is a broker of a finished scenario run started again on a
// copy of its log dir: what a broker does with such a copy (log recovery,
// the coordinator reloading __transaction_state) is the ground truth for
// ksleuth's predictions. Close stops it.
type Restarted struct {
	*Env
	Cluster *Cluster
	Broker  *Broker
}

// Restart copies the log dir of broker nodeID of the single-broker run in
// out to root/data and starts a broker on it with the run's config (new
// ports, logs in root/logs); the run's own files are left as they are.
// prepare, when set, gets the copy before the broker starts (to alter it,
// or to read it first).
func Restart(ctx context.Context, k *Kafka, out string, nodeID int, root string,
	prepare func(data string) error, logf func(string, ...any)) (*Restarted, error) {
	name := fmt.Sprintf("broker-%d", nodeID)
	props, err := readProperties(filepath.Join(out, "work", name+".properties"))
	if err != nil {
		return nil, err
	}
	if strings.Contains(props["controller.quorum.voters"], ",") {
		return nil, fmt.Errorf("restart: %s is one of several voters; only a single-broker run restarts on its own", name)
	}
	data := filepath.Join(root, "data")
	if err := copyTree(filepath.Join(out, name, "data"), data); err != nil {
		return nil, err
	}
	if prepare != nil {
		if err := prepare(data); err != nil {
			return nil, err
		}
	}
	meta, err := readProperties(filepath.Join(data, "meta.properties"))
	if err != nil {
		return nil, err
	}
	env, err := NewEnv(k, root, logf)
	if err != nil {
		return nil, err
	}
	c := &Cluster{env: env, ClusterID: meta["cluster.id"]}
	p, err := freePort()
	if err != nil {
		return nil, err
	}
	cp, err := freePort()
	if err != nil {
		return nil, err
	}
	b := &Broker{c: c, NodeID: nodeID, Root: root, LogDir: data, Logs: filepath.Join(root, "logs"), Port: p, CtrlPort: cp,
		config: filepath.Join(root, "work", name+".properties")}
	c.Brokers = []*Broker{b}
	np := maps.Clone(props)
	np["log.dirs"] = data
	np["listeners"] = fmt.Sprintf("PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d", p, cp)
	np["advertised.listeners"] = fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", p)
	np["controller.quorum.voters"] = fmt.Sprintf("%d@127.0.0.1:%d", nodeID, cp)
	if err := b.writeConfig(np); err != nil {
		return nil, err
	}
	r := &Restarted{Env: env, Cluster: c, Broker: b}
	if err := b.Start(); err != nil {
		env.Close()
		return nil, err
	}
	if err := c.WaitReady(ctx, b); err != nil {
		env.Close()
		return nil, err
	}
	return r, nil
}

// Close stops the broker cleanly and ends every process of the restart.
func (r *Restarted) Close() error {
	err := r.Broker.Stop()
	r.Env.Close()
	return err
}

func readProperties(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return m, sc.Err()
}

// copyTree copies the regular files and dirs under src to dst, which must
// not exist.
func copyTree(src, dst string) error {
	return filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case fi.IsDir():
			return os.MkdirAll(to, 0o755)
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, data, fi.Mode().Perm())
		}
		return nil
	})
}
