package pipeline

import (
	"strconv"

	"github.com/ksleuth/ksleuth/analysis/check"
	"github.com/ksleuth/ksleuth/analysis/cluster"
)

// topicRetention is the retention settings the replayed topic configs
// give every topic: the evidence the loss ledger weighs a missing log
// start against. A value that does not parse counts as not set.
func topicRetention(c *cluster.TopicConfigs) map[string]check.Retention {
	out := map[string]check.Retention{}
	for name := range c.Topics() {
		var r check.Retention
		if v, ok := c.Setting(name, "retention.ms"); ok {
			r.Ms, r.MsSet = parseSetting(v)
		}
		if v, ok := c.Setting(name, "retention.bytes"); ok {
			r.Bytes, r.BytesSet = parseSetting(v)
		}
		r.Policy, r.PolicySet = c.Setting(name, "cleanup.policy")
		out[name] = r
	}
	return out
}

func parseSetting(v string) (int64, bool) {
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}
