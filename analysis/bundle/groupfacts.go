package bundle

import (
	"fmt"
	"path"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

// groupFacts are the lines of what the internal topics say that the
// bundle must reproduce, names given as the bundle names them (Compare
// maps tokens back): every offset commit, every group metadata record
// with its members, and every record of __transaction_state. The commit
// metadata is compared by its length (it is free text, replaced by keyed
// characters nobody maps back), and so are no subscription and
// assignment sizes (their topics are tokens of other lengths).
func groupFacts(res *pipeline.Result, dir func(int32, string) string) []string {
	var out []string
	for _, c := range res.Commits() {
		out = append(out, fmt.Sprintf("commit %s@%d: group %s, %s-%d at %s (tombstone %t, epoch %s, committed at %s, metadata of %d bytes)",
			dir(c.Input, path.Dir(c.File)), c.Offset, c.Group, c.Topic, c.Partition, optInt(c.CommittedOffset), c.Tombstone,
			optInt(c.LeaderEpoch), optInt(c.CommitTimestamp), len(c.Metadata)))
	}
	for _, g := range res.Groups() {
		var members []string
		for _, m := range g.Members {
			inst := "-"
			if m.GroupInstanceID != nil {
				inst = *m.GroupInstanceID
			}
			members = append(members, fmt.Sprintf("%s (instance %s, client %s, host %s, session %d ms)", m.MemberID, inst, m.ClientID,
				m.ClientHost, m.SessionTimeoutMs))
		}
		out = append(out, fmt.Sprintf("group %s@%d: group %s (tombstone %t), protocol %s/%s, generation %s, leader %s, members [%s]",
			dir(g.Input, path.Dir(g.File)), g.Offset, g.Group, g.Tombstone, g.ProtocolType, optString(g.Protocol), optInt(g.Generation),
			optString(g.Leader), strings.Join(members, ", ")))
	}
	for _, x := range res.Transactions() {
		out = append(out, fmt.Sprintf("transaction %s@%d: %s (tombstone %t), producer %s epoch %s, %s, partitions %s",
			dir(x.Input, path.Dir(x.Segment)), x.Offset, x.TransactionalID, x.Tombstone, optInt(x.ProducerID), optInt(x.ProducerEpoch),
			x.State, x.Partitions))
	}
	return out
}

func optString(p *string) string {
	if p == nil {
		return "-"
	}
	return *p
}
