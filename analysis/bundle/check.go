package bundle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
	"github.com/ksleuth/ksleuth/analysis/source"
)

// ErrNoManifest: the archive given as a bundle holds no manifest.
var ErrNoManifest = errors.New("no " + ManifestName + " in the archive: it is no ksleuth bundle")

// ReadManifest reads the manifest of the bundle in (an archive input).
func ReadManifest(ctx context.Context, in *source.Input) (*Manifest, error) {
	var man *Manifest
	err := in.Stream(ctx, source.Options{}, func(e *source.Entry, r io.Reader) error {
		if e.Path != ManifestName {
			return nil
		}
		m, err := decodeManifest(r)
		man = m
		return err
	})
	if err == nil && man == nil {
		err = ErrNoManifest
	}
	return man, err
}

// CompareOptions tune the runs Compare makes.
type CompareOptions struct {
	Jobs      int
	TmpDir    string
	RunBudget int64
	// Names, for a bundle made with names replaced, maps them back: the
	// differences are in the original names.
	Names *NamesMap
}

// Compare runs the analysis on the inputs a bundle was made from (as
// many, in the same order, by whatever path) and on the bundle, and
// returns what differs: lines starting with "-" for what
// only the inputs gave, "+" for what only the bundle gave, none when the
// bundle tells the same story. What is compared: every copy's verdict,
// the loss ledger's ranges and causes, the findings (kind, file and byte
// mapped through the manifest), the duplicates (by topic, partition and
// offset, with their class and the copy they repeat), the replicas'
// verdicts, and the consumer groups' commits and metadata and the
// transactional ids' records (groupFacts). Dirs and files are named as the bundle names them.
//
// Findings counts the errors and warnings the analysis found in the
// inputs.
func Compare(ctx context.Context, originals []*source.Input, bundle *source.Input, man *Manifest, o CompareOptions) (diffs []string, findings int64, err error) {
	if len(man.Inputs) != len(originals) {
		return nil, 0, fmt.Errorf("the bundle was made from %d inputs, %d are given", len(man.Inputs), len(originals))
	}
	rename := func(p string) string { return p }
	if o.Names != nil {
		n := o.Names.namer()
		rename = func(p string) string { return renamePath(p, "", o.Names.known(n)) }
	}
	want, findings, err := facts(ctx, originals, o, func(input int32, dir string) string { return man.Dir(int(input), rename(dir)) }, man, rename)
	if err != nil {
		return nil, 0, err
	}
	got, _, err := facts(ctx, []*source.Input{bundle}, o, func(_ int32, dir string) string { return dir }, nil, rename)
	if err != nil {
		return nil, 0, err
	}
	if o.Names != nil {
		for _, lines := range [][]string{want, got} {
			for i, l := range lines {
				lines[i] = o.Names.back(l)
			}
			slices.Sort(lines)
		}
	}
	return diff(want, got), findings, nil
}

// diff returns the lines only in want ("- ") and only in got ("+ "),
// each set sorted.
func diff(want, got []string) []string {
	count := map[string]int{}
	for _, s := range want {
		count[s]++
	}
	for _, s := range got {
		count[s]--
	}
	var out []string
	for _, s := range want {
		if count[s] > 0 {
			count[s]--
			out = append(out, "- "+s)
		}
	}
	for _, s := range got {
		if count[s] < 0 {
			count[s]++
			out = append(out, "+ "+s)
		}
	}
	return out
}

// facts runs the analysis on inputs and returns one line per thing the
// bundle must reproduce, sorted, and the count of errors and warnings;
// dir names a copy's dir as the bundle does, and man, for the original
// inputs, maps files and bytes, their paths renamed by rename as the
// bundle names them.
func facts(ctx context.Context, inputs []*source.Input, o CompareOptions, dir func(int32, string) string,
	man *Manifest, rename func(string) string) (out []string, findings int64, err error) {
	det, err := pipeline.OpenDetector(dups.Options{TmpDir: o.TmpDir, NoExplanations: true}, inputs)
	if err != nil {
		return nil, 0, err
	}
	defer det.Close()
	plan := pipeline.Plan{Command: pipeline.Dups, Jobs: o.Jobs, TmpDir: o.TmpDir, Detector: det, Hasher: dups.NewHasher(0, nil)}
	res, err := pipeline.Run(ctx, inputs, plan.Options(), pipeline.Sinks{})
	if err != nil {
		return nil, 0, err
	}
	findings = res.Scan.Errors + res.Warnings
	for _, v := range res.Check.Partitions {
		out = append(out, fmt.Sprintf("verdict %s %s-%d: %s, offsets %d..%d, %d lost (unbounded %t)", dir(v.Input, v.Dir), v.Topic, v.Partition,
			v.State, v.FirstOffset, v.LogEndOffset, v.Lost, v.Unbounded))
	}
	for _, g := range res.Check.Gaps {
		out = append(out, fmt.Sprintf("loss %s %s-%d: %d..%s %s (%s)", dir(g.Input, g.Dir), g.Topic, g.Partition, g.FirstOffset, optInt(g.LastOffset),
			g.Cause, g.Severity))
	}
	for _, f := range res.Scan.Anomalies {
		out = append(out, findingFact(f, man, rename))
	}
	out = append(out, groupFacts(res, dir)...)
	rows, err := dupRows(ctx, det, res, o)
	if err != nil {
		return nil, 0, err
	}
	for _, r := range rows {
		how := ""
		if r.Class != "" {
			how = ", " + r.Class
		}
		if r.RefTopic != nil && r.RefPartition != nil && r.RefOffset != nil {
			how += fmt.Sprintf(", repeats %s-%d@%d", *r.RefTopic, *r.RefPartition, *r.RefOffset)
		}
		out = append(out, fmt.Sprintf("duplicate %s %s-%d@%d: copy %d%s", dir(r.Input, r.Dir), r.Topic, r.Partition, r.Offset, r.Occurrence, how))
	}
	plan = pipeline.Plan{Command: pipeline.Replicas, Jobs: o.Jobs, TmpDir: o.TmpDir}
	rep, err := pipeline.Run(ctx, inputs, plan.Options(), pipeline.Sinks{})
	if err != nil {
		return nil, 0, err
	}
	input := map[string]int32{} // the reference copy's input, by its source
	for i, s := range pipeline.Sources(inputs) {
		input[s] = int32(i)
	}
	for _, r := range rep.Replicas.Rows {
		out = append(out, fmt.Sprintf("replica %s %s-%d: %s, offsets %d..%d, reference %s", dir(r.Input, r.Dir), r.Topic, r.Partition, r.Verdict,
			r.LogStartOffset, r.LogEndOffset, path.Clean(dir(input[r.ReferenceSource], r.ReferenceDir))))
	}
	slices.Sort(out)
	return out, findings, nil
}

// findingFact names a finding by its kind, and its file and byte as the
// bundle has them.
func findingFact(f analysis.AnomalyRow, man *Manifest, rename func(string) string) string {
	file, pos := f.File, optInt(f.Position)
	if man != nil {
		if mf := man.Lookup(int(f.Input), rename(f.File)); mf != nil {
			file = mf.Bundle
			if f.Position != nil {
				pos = fmt.Sprint(mf.Position(*f.Position))
			}
		} else if f.File != "" {
			file = man.Dir(int(f.Input), rename(f.File)) // a partition dir's finding
		}
	}
	return fmt.Sprintf("finding %s %s at %s (offset %s)", f.Kind, strings.TrimPrefix(file, "./"), pos, optInt(f.Offset))
}

// dupRows finishes the detector into its rows.
func dupRows(ctx context.Context, det *dups.Detector, res *pipeline.Result, o CompareOptions) (rows []analysis.DuplicateRow, err error) {
	rb, _, err := pipeline.DupRuns(ctx, det, res, res.Consumed(), o.TmpDir, o.RunBudget, 0, func(g []analysis.DuplicateRow) error {
		rows = append(rows, g...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rows, rb.Close()
}

func optInt[T int32 | int64](p *T) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}
