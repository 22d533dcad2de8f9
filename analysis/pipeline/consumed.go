package pipeline

import "github.com/ksleuth/ksleuth/analysis/consumers"

// Consumed says which consumer groups committed past the offsets of a
// partition copy: from the commits a run read (Result.Consumed) or those
// of earlier scans' tables (ShardCommits). Its zero value knows of none.
type Consumed struct{ idx *consumers.Index }

// Groups names the groups that committed past offset, in the order of
// the duplicates table's consumed_by column (empty, not nil, for none).
func (c Consumed) Groups(input int32, dir, topic string, partition int32, offset int64) []string {
	return consumers.Groups(c.idx.ConsumedPast(input, dir, topic, partition, offset))
}

// Text says which groups committed past offsets first..last, as the
// duplicate runs show it ("" when none did).
func (c Consumed) Text(input int32, dir, topic string, partition int32, first, last int64) string {
	return c.idx.Text(input, dir, topic, partition, first, last)
}

// Consumed is what the run's commits say of consumption.
func (r *Result) Consumed() Consumed { return Consumed{r.consIdx} }
