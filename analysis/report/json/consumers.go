package json

import (
	stdjson "encoding/json"
	"io"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

// CommitLine is a commit record, one JSON line.
type CommitLine struct {
	Type string `json:"type"`
	analysis.CommitRow
}

// GroupLine is a group metadata record, one JSON line.
type GroupLine struct {
	Type string `json:"type"`
	analysis.GroupRow
}

// Consumers writes the consumers report: the commit and group records,
// the timelines, the consumed ranges and one summary.
func Consumers(w io.Writer, rep *pipeline.ConsumersReport) error {
	enc := stdjson.NewEncoder(w)
	commits, groups, timelines, consumed, sum := rep.Commits, rep.Groups, rep.Timelines, rep.Consumed, &rep.Summary
	for _, c := range commits {
		if err := enc.Encode(CommitLine{"commit", c}); err != nil {
			return err
		}
	}
	for _, g := range groups {
		if err := enc.Encode(GroupLine{"group", g}); err != nil {
			return err
		}
	}
	for _, t := range timelines {
		if err := enc.Encode(t); err != nil {
			return err
		}
	}
	for _, c := range consumed {
		if err := enc.Encode(c); err != nil {
			return err
		}
	}
	return enc.Encode(sum)
}
