package text

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/report"
)

// TestRollUpNotesNeedNoAction: past a screen, scan lists one by one the
// partitions with an error or warning or a loss, and rolls up the rest
// by topic, those with notes alone among them.
func TestRollUpNotesNeedNoAction(t *testing.T) {
	s := &report.ScanSummary{}
	for i := range ScreenRows + 10 {
		p := analysis.PartitionSummary{Topic: "t", Partition: int32(i), Dir: fmt.Sprintf("t-%d", i), Batches: 1, Records: 1}
		switch i {
		case 3: // notes alone
			p.Findings, p.Notes = 2, 2
		case 5: // a warning and a note
			p.Findings, p.Notes = 2, 1
		case 7: // a loss
			s.Losses = append(s.Losses, analysis.Verdict{Topic: "t", Partition: 7, Dir: p.Dir, Text: "LOST offsets 0..0"})
		}
		s.Partitions = append(s.Partitions, p)
	}
	var b strings.Builder
	if err := writePartitions(&ErrWriter{W: &b}, s, false, false); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	head, _, _ := strings.Cut(out, "partitions by topic")
	listed := func(part string) bool { return regexp.MustCompile(`(?m)^t +` + part + ` `).MatchString(head) }
	if !strings.HasPrefix(out, "2 partitions that need action:") || !listed("5") || !listed("7") || listed("3") {
		t.Errorf("want t-5 and t-7 listed, t-3 (notes alone) rolled up:\n%s", out)
	}
}

// TestEmptyLineFits: the line of partitions with no batches names their
// topics while they fit 120 columns and counts the rest.
func TestEmptyLineFits(t *testing.T) {
	empty := map[string]int{}
	for i := range 30 {
		empty[fmt.Sprintf("_confluent-controlcenter-topic-%02d", i)] = 2
	}
	var b strings.Builder
	writeEmpty(&ErrWriter{W: &b}, empty)
	line := strings.TrimSuffix(b.String(), "\n")
	if strings.Contains(line, "\n") || width(line) > TerminalWidth ||
		!strings.HasPrefix(line, "(60 more partitions with no batches: _confluent-controlcenter-topic-00, ") ||
		!strings.HasSuffix(line, "topic-00, and 29 more topics)") {
		t.Errorf("line of %d columns: %q", width(line), line)
	}
	b.Reset()
	writeEmpty(&ErrWriter{W: &b}, map[string]int{"a": 1, "b": 2})
	if b.String() != "(3 more partitions with no batches: a, b)\n" {
		t.Errorf("short: %q", b.String())
	}
}
