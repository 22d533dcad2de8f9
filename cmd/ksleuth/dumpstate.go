package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/finding"
	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/snapshot"
)

// maxStateFile bounds how much of an index, snapshot or text state file
// dump reads into memory. Index files are preallocated to
// segment.index.bytes (10 MiB by default); a snapshot holds 46 bytes per
// live producer. 1 GiB is far beyond both and still protects against a
// mislabelled huge file.
const maxStateFile = 1 << 30

func readSmall(name string) ([]byte, error) {
	f, err := source.OpenNamed(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStateFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxStateFile {
		return nil, fmt.Errorf("%s: larger than %d bytes; not a state file", name, maxStateFile)
	}
	return data, nil
}

// dumpState prints every kind of file that is not a batch log.
func (d *dumper) dumpState(name string, kind snapshot.Kind) error {
	if kind == snapshot.KindLock {
		if !d.o.json {
			fmt.Fprintf(d.out, "Dumping %s\nlock file (%s): nothing to print\n", name, kind)
		}
		return nil
	}
	data, err := readSmall(name)
	if err != nil {
		return err
	}
	if !d.o.json {
		fmt.Fprintf(d.out, "Dumping %s\n", name)
	}
	switch kind {
	case snapshot.KindIndex:
		x, fs := segment.ParseOffsetIndex(name, data, -1)
		if len(x.Entries) == 0 && !d.o.json {
			fmt.Fprintf(d.out, "%s is empty.\n", name)
		}
		for _, e := range x.Entries {
			if d.o.json {
				d.writeJSON(map[string]any{"type": "index_entry", "file": name, "offset": e.Offset, "relative_offset": e.RelativeOffset, "position": e.Position})
			} else {
				fmt.Fprintln(d.out, e)
			}
		}
		d.indexFindings(fs)
	case snapshot.KindTimeIndex:
		x, fs := segment.ParseTimeIndex(name, data, -1)
		if len(x.Entries) == 0 && !d.o.json {
			fmt.Fprintf(d.out, "%s is empty.\n", name)
		}
		for _, e := range x.Entries {
			if d.o.json {
				d.writeJSON(map[string]any{"type": "timeindex_entry", "file": name, "timestamp": e.Timestamp, "offset": e.Offset, "relative_offset": e.RelativeOffset})
			} else {
				fmt.Fprintln(d.out, e)
			}
		}
		d.indexFindings(fs)
	case snapshot.KindTxnIndex:
		x, fs := segment.ParseTxnIndex(name, data, -1)
		if len(x.Entries) == 0 && !d.o.json {
			fmt.Fprintf(d.out, "%s is empty.\n", name)
		}
		for _, e := range x.Entries {
			if d.o.json {
				d.writeJSON(map[string]any{"type": "txn_entry", "file": name, "version": e.Version, "producer_id": e.ProducerID,
					"first_offset": e.FirstOffset, "last_offset": e.LastOffset, "last_stable_offset": e.LastStableOffset})
			} else {
				fmt.Fprintln(d.out, e)
			}
		}
		d.indexFindings(fs)
	case snapshot.KindSnapshot:
		f, err := snapshot.ParseNamed(name, data)
		if err == nil && len(f.Entries) == 0 && !d.o.json {
			fmt.Fprintln(d.out, "no producers")
		}
		for _, e := range f.Entries {
			if d.o.json {
				d.writeJSON(snapshotEntryJSON(name, e))
			} else {
				fmt.Fprintln(d.out, e)
			}
		}
		d.stateFindings(name, kind, err)
	case snapshot.KindLeaderEpochCheckpoint:
		c, err := snapshot.ParseLeaderEpochCheckpoint(name, data)
		if !d.o.json {
			d.checkpointHeader("", c.Version, c.Count, c.Empty)
		}
		for _, e := range c.Entries {
			if d.o.json {
				d.writeJSON(map[string]any{"type": "epoch_entry", "file": name, "leader_epoch": e.Epoch, "start_offset": e.StartOffset, "line": e.Line})
			} else {
				fmt.Fprintf(d.out, "leaderEpoch: %d startOffset: %d\n", e.Epoch, e.StartOffset)
			}
		}
		d.stateFindings(name, kind, err)
	case snapshot.KindRecoveryPointCheckpoint, snapshot.KindReplicationCheckpoint,
		snapshot.KindLogStartCheckpoint, snapshot.KindCleanerCheckpoint:
		c, err := snapshot.ParseOffsetCheckpoint(name, data)
		if !d.o.json {
			d.checkpointHeader(kind.String()+" ", c.Version, c.Count, c.Empty)
		}
		for _, e := range c.Entries {
			if d.o.json {
				d.writeJSON(map[string]any{"type": "checkpoint_entry", "file": name, "checkpoint": kind.String(),
					"topic": e.Topic, "partition": e.Partition, "offset": e.Offset, "line": e.Line})
			} else {
				fmt.Fprintf(d.out, "topic: %s partition: %d offset: %d\n", e.Topic, e.Partition, e.Offset)
			}
		}
		d.stateFindings(name, kind, err)
	case snapshot.KindPartitionMetadata:
		m, err := snapshot.ParsePartitionMetadata(name, data)
		// Only what was read: a field the parse did not reach is left out.
		fields := map[string]any{}
		if m.Version >= 0 {
			fields["version"] = m.Version
		}
		if m.HasTopicID {
			fields["topic_id"] = m.TopicID.String()
		}
		d.metadata(name, kind, fields, m.Notes)
		d.stateFindings(name, kind, err)
	case snapshot.KindMetaProperties:
		m, err := snapshot.ParseMetaProperties(name, data)
		fields := map[string]any{}
		for k, v := range m.Props {
			fields[k] = v
		}
		d.metadata(name, kind, fields, m.Notes)
		d.stateFindings(name, kind, err)
	case snapshot.KindCleanShutdown:
		m, err := snapshot.ParseCleanShutdown(name, data)
		fields := map[string]any{}
		for k, v := range m.Fields {
			fields[k] = v
		}
		if m.Empty {
			fields["empty"] = true
		}
		d.metadata(name, kind, fields, nil)
		d.stateFindings(name, kind, err)
	case snapshot.KindQuorumState:
		m, err := snapshot.ParseQuorumState(name, data)
		d.metadata(name, kind, m.Fields, nil)
		d.stateFindings(name, kind, err)
	default:
		return fmt.Errorf("%s: cannot dump a %s file", name, kind)
	}
	return nil
}

// checkpointHeader prints the version and count lines of a checkpoint, as
// far as they were read: nothing for a value the parse did not reach.
func (d *dumper) checkpointHeader(prefix string, version, count int, empty bool) {
	var parts []string
	if version >= 0 {
		parts = append(parts, fmt.Sprintf("version: %d", version))
	}
	if count >= 0 {
		parts = append(parts, fmt.Sprintf("count: %d", count))
	}
	if empty {
		parts = append(parts, "(the file ends here; the broker reads no entries)")
	}
	if len(parts) > 0 {
		fmt.Fprintf(d.out, "%s%s\n", prefix, strings.Join(parts, " "))
	}
}

func snapshotEntryJSON(name string, e snapshot.Entry) map[string]any {
	m := map[string]any{
		"type": "snapshot_entry", "file": name, "producer_id": e.ProducerID, "producer_epoch": e.Epoch,
		"coordinator_epoch": e.CoordinatorEpoch, "current_txn_first_offset": nil, "last_timestamp": e.Timestamp,
		"first_sequence": e.FirstSequence(), "last_sequence": e.LastSequence, "last_offset": e.LastOffset,
		"offset_delta": e.OffsetDelta, "timestamp": e.Timestamp,
	}
	if e.HasOpenTxn() {
		m["current_txn_first_offset"] = e.CurrentTxnFirstOffset
	}
	return m
}

// metadata prints a key/value file: sorted "key: value" lines in text,
// one "metadata" object in JSON.
func (d *dumper) metadata(name string, kind snapshot.Kind, fields map[string]any, notes []string) {
	if d.o.json {
		m := map[string]any{"type": "metadata", "file": name, "kind": kind.String(), "fields": fields}
		if len(notes) > 0 {
			m["notes"] = notes
		}
		d.writeJSON(m)
		return
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := fields[k]
		if _, isString := v.(string); !isString {
			// Numbers, lists and objects as JSON, so that large numbers
			// do not turn into 1e+06 and nested values stay readable.
			if b, err := json.Marshal(v); err == nil {
				v = string(b)
			}
		}
		fmt.Fprintf(d.out, "%s: %v\n", k, v)
	}
	for _, n := range notes {
		fmt.Fprintf(d.out, "note: %s\n", n)
	}
}

func (d *dumper) indexFindings(fs []*segment.IndexFinding) {
	for _, x := range fs {
		d.stateFinding(finding.FromIndex(finding.Where{Partition: -1, File: x.Path}, x))
	}
}

func (d *dumper) stateFindings(name string, kind snapshot.Kind, err error) {
	w := finding.Where{Partition: -1, File: name}
	if leftover := snapshot.ParseName(filepath.Base(name)); leftover.Leftover {
		msg := "leftover of an atomic rewrite that was never renamed (the broker crashed or was killed while writing it)"
		if errors.Is(err, snapshot.ErrEmpty) {
			// The crash came before any byte was written: nothing is lost,
			// and the broker ignores the file.
			msg = "empty " + msg
			err = nil
		}
		d.stateFinding(finding.New(w, finding.KindLeftover, -1, -1, "%s", msg))
	}
	for _, f := range finding.FromState(w, kind, err) {
		d.stateFinding(f)
	}
}

// stateFinding reports a problem found while parsing a non-log file: on
// stderr in text mode, in the stream with --json.
func (d *dumper) stateFinding(f analysis.AnomalyRow) {
	if finding.Counts(f.Severity) {
		d.findings++
	}
	pos, line := int64(-1), 0
	if f.Position != nil {
		pos = *f.Position
	}
	if f.Line != nil {
		line = int(*f.Line)
	}
	if d.o.json {
		// A finding about the whole file has a null position, as in
		// anomalies.parquet, and one of a binary file a null line.
		d.writeJSON(map[string]any{"type": "finding", "file": f.File, "kind": f.Kind, "severity": f.Severity,
			"position": f.Position, "line": f.Line, "message": f.Message})
		return
	}
	d.out.Flush()
	where := fmt.Sprintf("at byte %#x (%d)", pos, pos)
	if line > 0 {
		where = fmt.Sprintf("line %d", line)
	} else if pos < 0 {
		where = "whole file"
	}
	fmt.Fprintf(d.errw, "finding: %s: %s: %s [%s, %s]\n", f.File, where, f.Message, f.Kind, f.Severity)
}
