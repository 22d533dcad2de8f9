package pipeline

import (
	"context"
	"os"
	"path/filepath"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/export"
)

// setShardConsumers hands det the groups' commits and group records of
// every shard that has the tables (scans before them have none), as one
// scan of all the inputs hands them over: the consumer-side causes of
// duplicates rest on them.
func setShardConsumers(ctx context.Context, det *dups.Detector, shards []*Shard) error {
	var commits []analysis.CommitRow
	var groups []analysis.GroupRow
	for _, s := range shards {
		if err := eachShardRow(ctx, s, export.Commits, func(r *analysis.CommitRow) {
			c := *r
			c.Input += s.offset
			commits = append(commits, c)
		}); err != nil {
			return err
		}
		if err := eachShardRow(ctx, s, export.Groups, func(r *analysis.GroupRow) {
			g := *r
			g.Input += s.offset
			groups = append(groups, g)
		}); err != nil {
			return err
		}
	}
	det.SetConsumers(commits, groups)
	return nil
}

// eachShardRow calls f with every row of a shard's table, when it has it.
func eachShardRow[T any](ctx context.Context, s *Shard, table string, f func(*T)) error {
	path := filepath.Join(s.dir, table)
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	return export.EachRow(ctx, path, func(r *T) error {
		f(r)
		return nil
	})
}
