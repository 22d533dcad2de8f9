package realkafka

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Client is a franz-go client on the running brokers.
func (c *Cluster) Client(opts ...kgo.Opt) (*kgo.Client, error) {
	return kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.Bootstrap()...)}, opts...)...)
}

// CreateTopic creates a topic with topic-level configs and waits until
// every partition has a leader.
func CreateTopic(ctx context.Context, c *Cluster, topic string, partitions, rf int, configs map[string]string) error {
	cl, err := c.Client()
	if err != nil {
		return err
	}
	defer cl.Close()
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 30000
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = topic, int32(partitions), int16(rf)
	for _, k := range slices.Sorted(maps.Keys(configs)) {
		cfg := kmsg.NewCreateTopicsRequestTopicConfig()
		cfg.Name, cfg.Value = k, kmsg.StringPtr(configs[k])
		rt.Configs = append(rt.Configs, cfg)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("create topic %s: %w", topic, err)
	}
	for _, t := range resp.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			msg := ""
			if t.ErrorMessage != nil {
				msg = *t.ErrorMessage
			}
			return fmt.Errorf("create topic %s: %w %s", topic, err, msg)
		}
	}
	return waitLeaders(ctx, cl, topic, partitions)
}

func waitLeaders(ctx context.Context, cl *kgo.Client, topic string, partitions int) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		req := kmsg.NewPtrMetadataRequest()
		mt := kmsg.NewMetadataRequestTopic()
		mt.Topic = kmsg.StringPtr(topic)
		req.Topics = append(req.Topics, mt)
		resp, err := req.RequestWith(ctx, cl)
		if err == nil && len(resp.Topics) == 1 && len(resp.Topics[0].Partitions) == partitions {
			ok := true
			for _, p := range resp.Topics[0].Partitions {
				if p.Leader < 0 || p.ErrorCode != 0 {
					ok = false
				}
			}
			if ok {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("topic %s: partitions without a leader after 60s (%v)", topic, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// DeleteRecords moves the log start offset of one partition to before.
func DeleteRecords(ctx context.Context, c *Cluster, topic string, partition int32, before int64) error {
	cl, err := c.Client()
	if err != nil {
		return err
	}
	defer cl.Close()
	req := kmsg.NewPtrDeleteRecordsRequest()
	req.TimeoutMillis = 30000
	rt := kmsg.NewDeleteRecordsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewDeleteRecordsRequestTopicPartition()
	rp.Partition, rp.Offset = partition, before
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return fmt.Errorf("delete records %s-%d below %d: %w", topic, partition, before, err)
			}
		}
	}
	return nil
}
