package realkafka

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

//go:embed java/StallingTransferer.java
var transfererSource []byte

// stallingTransferer is the class LocalTieredStorage copies files with in
// tier-copy-failed (java/StallingTransferer.java).
const stallingTransferer = "StallingTransferer"

// tierCopyFailed tiers a topic with a copier that stalls on the second
// segment's copy once its .log is in the store; the broker is killed
// there and started again without the stall. __remote_log_metadata then
// holds that copy's COPY_SEGMENT_STARTED and nothing after; the broker
// copies the segment again under a new id, so nothing is lost, and the
// first copy's .log stays in the store: an orphan.
var tierCopyFailed = Scenario{
	Name:    "tier-copy-failed",
	Doc:     "a remote copy stalled and its broker killed (COPY_SEGMENT_STARTED, never finished), then copied again: an orphan, nothing lost",
	Brokers: 1, Stop: "clean", Tiered: true,
	Config: map[string]string{"rsm.config.transferer.class": stallingTransferer},
	run: func(s *Session) error {
		remote := filepath.Join(s.Dir, "remote")
		if err := os.MkdirAll(remote, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(remote, "stall-copy"), []byte("1\n"), 0o644); err != nil {
			return err
		}
		return s.tier(tierPlan{topics: []string{"tiered"}, settle: s.killStalledCopy})
	},
	after: func(s *Session, t *Truth) error {
		stalled, err := os.ReadFile(filepath.Join(s.Dir, "remote", "copy-stalled"))
		if err != nil {
			return err
		}
		root := filepath.Join(s.Dir, "remote", remoteDirName)
		path := string(stalled)
		if _, err := os.Stat(path); err != nil {
			s.Logf("the stalled copy's .log is gone from the store: %v", err)
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		base, id, _ := strings.Cut(strings.TrimSuffix(filepath.Base(path), ".log"), "-")
		start, err := strconv.ParseInt(base, 10, 64)
		if err != nil {
			return err
		}
		t.RemoteSegments = append(t.RemoteSegments, TruthRemoteSegment{Topic: "tiered", SegmentID: id, StartOffset: start,
			File: filepath.ToSlash(rel), Harm: RemoteUnfinished})
		return nil
	},
}

// killStalledCopy waits until the copier stalls, kills the broker (the
// copy is started and never finished), takes the stall away and starts
// the broker again.
func (s *Session) killStalledCopy() error {
	remote := filepath.Join(s.Dir, "remote")
	deadline := time.Now().Add(90 * time.Second)
	for {
		if raw, err := os.ReadFile(filepath.Join(remote, "copy-stalled")); err == nil {
			s.Logf("copy stalled on %s", filepath.Base(string(raw)))
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no remote copy stalled within 90s")
		}
		time.Sleep(250 * time.Millisecond)
	}
	b := s.Cluster.Brokers[0]
	b.Kill()
	if err := os.Remove(filepath.Join(remote, "stall-copy")); err != nil {
		return err
	}
	if err := b.Start(); err != nil {
		return err
	}
	return s.Cluster.WaitReady(s.Ctx, b)
}

// transfererClasses compiles StallingTransferer.java against the jar of
// LocalTieredStorage once per source version, beside that jar.
func transfererClasses(k *Kafka, jars string) (string, error) {
	sum := sha256.Sum256(transfererSource)
	dir := filepath.Join(k.Dir, "classes", "transferer-"+hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, stallingTransferer+".class")); err == nil {
		return dir, nil
	}
	tmp, err := os.MkdirTemp(k.Dir, "javac-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, stallingTransferer+".java")
	if err := os.WriteFile(src, transfererSource, 0o644); err != nil {
		return "", err
	}
	out, err := exec.Command("javac", "-nowarn", "-cp", k.Classpath(filepath.Join(jars, "*")), "-d", tmp, src).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("javac %s: %v\n%s", stallingTransferer, err, out)
	}
	os.Remove(src)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	// Another process may have compiled it meanwhile; either copy is good.
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, stallingTransferer+".class")); serr != nil {
			return "", err
		}
	}
	return dir, nil
}

// tierPartitionDeleted tiers two topics and deletes one: the broker
// deletes its log dir and each of its remote segments (Kafka 4.4 writes
// DELETE_SEGMENT_STARTED and _FINISHED for each, and no
// RemotePartitionDeleteMetadata), leaving the partition's directory in
// the remote store empty. Its records are deleted on purpose, not lost;
// the other topic is clean tiering.
var tierPartitionDeleted = Scenario{
	Name:    "tier-partition-deleted",
	Doc:     "two topics tiered, one deleted: its remote partition deleted (RemotePartitionDeleteMetadata), nothing lost",
	Brokers: 1, Stop: "clean", Tiered: true,
	run: func(s *Session) error {
		if err := s.tier(tierPlan{topics: []string{"tiered", "gone"}}); err != nil {
			return err
		}
		if err := deleteTopic(s, "gone"); err != nil {
			return err
		}
		s.App.DropTopic("gone")
		return s.awaitPartitionDeleted("gone")
	},
	after: func(s *Session, t *Truth) error {
		t.DeletedTopics = append(t.DeletedTopics, "gone")
		return nil
	},
}

// awaitPartitionDeleted waits until the log dir no longer holds topic's
// partition 0 under its own name (the broker renames it
// <partition>.<uuid>-delete, and may keep it so past the stop) and the
// remote store holds no file of it.
func (s *Session) awaitPartitionDeleted(topic string) error {
	root := filepath.Join(s.Dir, "remote", remoteDirName)
	deadline := time.Now().Add(60 * time.Second)
	for {
		remote, _ := filepath.Glob(filepath.Join(root, topic+"-0-*", "*"))
		local, _ := filepath.Glob(filepath.Join(s.Cluster.Brokers[0].LogDir, topic+"-0"))
		if len(remote) == 0 && len(local) == 0 {
			s.Logf("%s-0 deleted locally and in remote storage", topic)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s-0 not deleted within 60s: remote %v, local %v", topic, remote, local)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// deleteTopic deletes a topic through the admin API.
func deleteTopic(s *Session, topic string) error {
	cl, err := s.Cluster.Client()
	if err != nil {
		return err
	}
	defer cl.Close()
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.TimeoutMillis = 30000
	rt := kmsg.NewDeleteTopicsRequestTopic()
	rt.Topic = &topic
	req.Topics = append(req.Topics, rt)
	req.TopicNames = append(req.TopicNames, topic)
	resp, err := req.RequestWith(s.Ctx, cl)
	if err != nil {
		return err
	}
	for _, r := range resp.Topics {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			return fmt.Errorf("delete topic %s: %w", topic, err)
		}
	}
	return nil
}
