package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"

	"github.com/ksleuth/ksleuth/analysis/dups"
	"github.com/ksleuth/ksleuth/analysis/export"
	"github.com/spf13/cobra"
)

// tableRecord is the part of a records row duplicate detection reads;
// the other columns (and the payload) are never decoded.
type tableRecord struct {
	Input         int32  `parquet:"input"`
	Topic         string `parquet:"topic"`
	Partition     int32  `parquet:"partition"`
	Dir           string `parquet:"dir"`
	Offset        int64  `parquet:"offset"`
	Timestamp     *int64 `parquet:"timestamp,optional,timestamp(millisecond:utc)"`
	ProducerID    int64  `parquet:"producer_id"`
	ProducerEpoch int32  `parquet:"producer_epoch"`
	Sequence      int32  `parquet:"sequence"`
	Fingerprint   string `parquet:"fingerprint"`
	TxnState      string `parquet:"txn_state"`
	IsControl     bool   `parquet:"is_control"`
	Damaged       bool   `parquet:"damaged"`
}

// shard is the output dir of one earlier scan.
type shard struct {
	dir     string
	sources []string
	fp      fingerprintMeta
	parts   []string // records part files, sorted
	offset  int32    // index of its first input among all shards' inputs
}

// openShard checks that dir holds the complete tables of a scan run with
// --records, and reads their metadata.
func openShard(dir string) (*shard, error) {
	files := filepath.Join(dir, tableFiles)
	if _, err := os.Stat(files); err != nil {
		return nil, usageError{fmt.Errorf("dups --from-tables: %s has no %s: not the output of a completed ksleuth scan", dir, tableFiles)}
	}
	recDir := filepath.Join(dir, tableRecords)
	if fi, err := os.Stat(recDir); err != nil || !fi.IsDir() {
		if _, err := os.Stat(filepath.Join(dir, tableRecordsV1)); err == nil {
			return nil, usageError{fmt.Errorf("dups --from-tables: %s holds %s from an older ksleuth; rescan with this version and --records", dir, tableRecordsV1)}
		}
		return nil, usageError{fmt.Errorf("dups --from-tables: %s has no records table; run ksleuth scan with --records", dir)}
	}
	s := &shard{dir: dir}
	err := filepath.WalkDir(recDir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".parquet") && !strings.HasPrefix(e.Name(), ".") {
			s.parts = append(s.parts, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(s.parts)
	kv, err := export.ReadMetadata(files)
	if err != nil {
		return nil, err
	}
	src, ok1 := kv[metaSources]
	fp, ok2 := kv[metaFingerprint]
	if !ok1 || !ok2 {
		return nil, usageError{fmt.Errorf("dups --from-tables: %s was written by an older ksleuth (no %s metadata); rescan with this version", dir, metaFingerprint)}
	}
	if err := json.Unmarshal([]byte(src), &s.sources); err != nil {
		return nil, fmt.Errorf("dups --from-tables: %s: %s metadata: %w", files, metaSources, err)
	}
	if err := json.Unmarshal([]byte(fp), &s.fp); err != nil {
		return nil, fmt.Errorf("dups --from-tables: %s: %s metadata: %w", files, metaFingerprint, err)
	}
	return s, nil
}

func describeFP(m fingerprintMeta) string {
	ig := "none"
	if len(m.IgnoreHeaders) > 0 {
		ig = strings.Join(m.IgnoreHeaders, ",")
	}
	return fmt.Sprintf("--match %s, --ignore-header %s", m.Match, ig)
}

// runDupsFromTables is dups --from-tables DIR...: the detector fed from
// the records tables of earlier scans instead of the files.
func runDupsFromTables(cmd *cobra.Command, dirs []string, o *commonOptions, d *dupOptions, limit int) error {
	var topic *regexp.Regexp
	if o.topic != "" {
		re, err := regexp.Compile(o.topic)
		if err != nil {
			return usageError{fmt.Errorf("dups: --topic: %w", err)}
		}
		topic = re
	}
	d.terse = !o.json
	dopts, _, err := d.detectorOptions("dups")
	if err != nil {
		return err
	}
	var shards []*shard
	seen := map[string]string{}
	var inputs int32
	for _, dir := range dirs {
		s, err := openShard(dir)
		if err != nil {
			return err
		}
		if len(shards) > 0 && s.fp.Probe != shards[0].fp.Probe {
			return usageError{fmt.Errorf("dups --from-tables: %s and %s were fingerprinted by different ksleuth versions (different hash functions); scan all shards with one version", shards[0].dir, dir)}
		}
		if len(shards) > 0 && describeFP(s.fp) != describeFP(shards[0].fp) {
			return usageError{fmt.Errorf("dups --from-tables: %s was scanned with %s but %s with %s; scan all shards with the same --match and --ignore-header",
				shards[0].dir, describeFP(shards[0].fp), dir, describeFP(s.fp))}
		}
		for _, src := range s.sources {
			if prev, ok := seen[src]; ok {
				return usageError{fmt.Errorf("dups --from-tables: input %q appears in both %s and %s; the same input scanned twice, or two inputs with one name (give each shard's inputs distinct paths)", src, prev, dir)}
			}
			seen[src] = dir
		}
		s.offset = inputs
		inputs += int32(len(s.sources))
		shards = append(shards, s)
	}
	if f := cmd.Flags(); f.Changed("match") || f.Changed("ignore-header") {
		want := newFingerprintMeta(d.match, d.ignoreHeaders)
		want.Probe = shards[0].fp.Probe
		if describeFP(want) != describeFP(shards[0].fp) {
			return usageError{fmt.Errorf("dups --from-tables: %s differs from the scans' %s: the fingerprints in the records tables were computed at scan time; drop the flags, or rescan with them",
				describeFP(want), describeFP(shards[0].fp))}
		}
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	det, err := dups.New(dopts)
	if err != nil {
		return err
	}
	defer det.Close()
	var findings, unreadable int64
	for _, s := range shards {
		if err := addShard(ctx, det, s, topic); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("dups interrupted: %w", context.Cause(ctx))
			}
			return err
		}
		err := export.EachRow(ctx, filepath.Join(s.dir, tableFiles), func(r *struct {
			Status string `parquet:"status"`
		}) error {
			if r.Status == "unreadable" {
				unreadable++
			}
			return nil
		})
		if err != nil {
			return err
		}
		err = export.EachRow(ctx, filepath.Join(s.dir, tableAnomalies), func(r *struct {
			Severity string `parquet:"severity"`
		}) error {
			if r.Severity == "error" || r.Severity == "warning" {
				findings++
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if unreadable > 0 {
		// The scans behind the tables could not read everything.
		fmt.Fprintf(cmd.ErrOrStderr(), "ksleuth: dups: the tables list %d input file(s) that could not be read\n", unreadable)
	}
	return reportDups(ctx, cmd, o, det, d.tmp, limit, int(inputs), findings, nil)
}

// addShard adds the data records of one shard's records table.
func addShard(ctx context.Context, det *dups.Detector, s *shard, topic *regexp.Regexp) error {
	type partKey struct {
		input int32
		dir   string
	}
	ids := map[partKey]dups.PartID{}
	for _, p := range s.parts {
		err := export.EachRow(ctx, p, func(r *tableRecord) error {
			if r.IsControl || topic != nil && !topic.MatchString(r.Topic) {
				return nil
			}
			if r.Input < 0 || int(r.Input) >= len(s.sources) {
				return fmt.Errorf("dups --from-tables: %s: input %d, but the scan had %d input(s)", p, r.Input, len(s.sources))
			}
			k := partKey{r.Input, r.Dir}
			id, ok := ids[k]
			if !ok {
				id = det.Partition(s.offset+r.Input, s.sources[r.Input], r.Topic, r.Partition, r.Dir)
				ids[k] = id
			}
			fp, err := dups.ParseFingerprint(r.Fingerprint)
			if err != nil {
				return fmt.Errorf("dups --from-tables: %s: %w", p, err)
			}
			rec := dups.Record{Part: id, Offset: r.Offset, Timestamp: -1, ProducerID: r.ProducerID, Epoch: int16(r.ProducerEpoch),
				Sequence: r.Sequence, Txn: dups.ParseTxnState(r.TxnState), Damaged: r.Damaged, Fingerprint: fp}
			if r.Timestamp != nil {
				rec.Timestamp = *r.Timestamp
			}
			return det.Add(&rec)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
