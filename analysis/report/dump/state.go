package dump

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/report/payloadenc"
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
func (d *Dumper) dumpState(name string, kind snapshot.Kind) error {
	if kind == snapshot.KindLock {
		if !d.o.JSON {
			fmt.Fprintf(d.out, "Dumping %s\nlock file (%s): nothing to print\n", name, kind)
		}
		return nil
	}
	data, err := readSmall(name)
	if err != nil {
		return err
	}
	if !d.o.JSON {
		fmt.Fprintf(d.out, "Dumping %s\n", name)
	}
	switch kind {
	case snapshot.KindIndex, snapshot.KindTimeIndex, snapshot.KindTxnIndex:
		d.dumpIndex(name, kind, data)
	case snapshot.KindSnapshot:
		f, err := snapshot.ParseNamed(name, data)
		if err == nil && len(f.Entries) == 0 && !d.o.JSON {
			fmt.Fprintln(d.out, "no producers")
		}
		for _, e := range f.Entries {
			if d.o.JSON {
				payloadenc.WriteLine(d.out, snapshotEntryJSON(name, e))
			} else {
				fmt.Fprintln(d.out, e)
			}
		}
		d.stateFindings(name, kind, err)
	case snapshot.KindLeaderEpochCheckpoint, snapshot.KindRecoveryPointCheckpoint, snapshot.KindReplicationCheckpoint,
		snapshot.KindLogStartCheckpoint, snapshot.KindCleanerCheckpoint:
		d.dumpCheckpoint(name, kind, data)
	case snapshot.KindPartitionMetadata, snapshot.KindMetaProperties, snapshot.KindCleanShutdown, snapshot.KindQuorumState:
		d.dumpProperties(name, kind, data)
	default:
		return fmt.Errorf("%s: cannot dump a %s file", name, kind)
	}
	return nil
}

// indexEntry is one entry of an index file: its text line (fmt's form of
// the value) and its JSON object.
type indexEntry struct {
	text any
	json map[string]any
}

// dumpIndex prints an offset, time or transaction index entry by entry,
// as kafka-dump-log prints them.
func (d *Dumper) dumpIndex(name string, kind snapshot.Kind, data []byte) {
	var es []indexEntry
	var fs []*segment.IndexFinding
	switch kind {
	case snapshot.KindIndex:
		var x *segment.OffsetIndex
		x, fs = segment.ParseOffsetIndex(name, data, -1)
		for _, e := range x.Entries {
			es = append(es, indexEntry{e, map[string]any{"type": "index_entry", "file": name,
				"offset": e.Offset, "relative_offset": e.RelativeOffset, "position": e.Position}})
		}
	case snapshot.KindTimeIndex:
		var x *segment.TimeIndex
		x, fs = segment.ParseTimeIndex(name, data, -1)
		for _, e := range x.Entries {
			es = append(es, indexEntry{e, map[string]any{"type": "timeindex_entry", "file": name,
				"timestamp": e.Timestamp, "offset": e.Offset, "relative_offset": e.RelativeOffset}})
		}
	case snapshot.KindTxnIndex:
		var x *segment.TxnIndex
		x, fs = segment.ParseTxnIndex(name, data, -1)
		for _, e := range x.Entries {
			es = append(es, indexEntry{e, map[string]any{"type": "txn_entry", "file": name, "version": e.Version, "producer_id": e.ProducerID,
				"first_offset": e.FirstOffset, "last_offset": e.LastOffset, "last_stable_offset": e.LastStableOffset}})
		}
	}
	if len(es) == 0 && !d.o.JSON {
		fmt.Fprintf(d.out, "%s is empty.\n", name)
	}
	for _, e := range es {
		if d.o.JSON {
			payloadenc.WriteLine(d.out, e.json)
		} else {
			fmt.Fprintln(d.out, e.text)
		}
	}
	d.indexFindings(fs)
}

// dumpCheckpoint prints the leader-epoch checkpoint or an offset
// checkpoint: its header as far as it was read, then its entries.
func (d *Dumper) dumpCheckpoint(name string, kind snapshot.Kind, data []byte) {
	if kind == snapshot.KindLeaderEpochCheckpoint {
		c, err := snapshot.ParseLeaderEpochCheckpoint(name, data)
		if !d.o.JSON {
			d.checkpointHeader("", c.Version, c.Count, c.Empty)
		}
		for _, e := range c.Entries {
			if d.o.JSON {
				payloadenc.WriteLine(d.out, map[string]any{"type": "epoch_entry", "file": name,
					"leader_epoch": e.Epoch, "start_offset": e.StartOffset, "line": e.Line})
			} else {
				fmt.Fprintf(d.out, "leaderEpoch: %d startOffset: %d\n", e.Epoch, e.StartOffset)
			}
		}
		d.stateFindings(name, kind, err)
		return
	}
	c, err := snapshot.ParseOffsetCheckpoint(name, data)
	if !d.o.JSON {
		d.checkpointHeader(kind.String()+" ", c.Version, c.Count, c.Empty)
	}
	for _, e := range c.Entries {
		if d.o.JSON {
			payloadenc.WriteLine(d.out, map[string]any{"type": "checkpoint_entry", "file": name, "checkpoint": kind.String(),
				"topic": e.Topic, "partition": e.Partition, "offset": e.Offset, "line": e.Line})
		} else {
			fmt.Fprintf(d.out, "topic: %s partition: %d offset: %d\n", e.Topic, e.Partition, e.Offset)
		}
	}
	d.stateFindings(name, kind, err)
}

// dumpProperties prints a file of named fields: partition.metadata,
// meta.properties, .kafka_cleanshutdown or quorum-state.
func (d *Dumper) dumpProperties(name string, kind snapshot.Kind, data []byte) {
	fields := map[string]any{}
	var notes []string
	var err error
	switch kind {
	case snapshot.KindPartitionMetadata:
		var m *snapshot.PartitionMetadata
		m, err = snapshot.ParsePartitionMetadata(name, data)
		// Only what was read: a field the parse did not reach is left out.
		if m.Version >= 0 {
			fields["version"] = m.Version
		}
		if m.HasTopicID {
			fields["topic_id"] = m.TopicID.String()
		}
		notes = m.Notes
	case snapshot.KindMetaProperties:
		var m *snapshot.MetaProperties
		m, err = snapshot.ParseMetaProperties(name, data)
		for k, v := range m.Props {
			fields[k] = v
		}
		notes = m.Notes
	case snapshot.KindCleanShutdown:
		var m *snapshot.CleanShutdown
		m, err = snapshot.ParseCleanShutdown(name, data)
		for k, v := range m.Fields {
			fields[k] = v
		}
		if m.Empty {
			fields["empty"] = true
		}
	case snapshot.KindQuorumState:
		var m *snapshot.QuorumState
		m, err = snapshot.ParseQuorumState(name, data)
		fields = m.Fields
	}
	d.metadata(name, kind, fields, notes)
	d.stateFindings(name, kind, err)
}

// checkpointHeader prints the version and count lines of a checkpoint, as
// far as they were read: nothing for a value the parse did not reach.
func (d *Dumper) checkpointHeader(prefix string, version, count int, empty bool) {
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
func (d *Dumper) metadata(name string, kind snapshot.Kind, fields map[string]any, notes []string) {
	if d.o.JSON {
		m := map[string]any{"type": "metadata", "file": name, "kind": kind.String(), "fields": fields}
		if len(notes) > 0 {
			m["notes"] = notes
		}
		payloadenc.WriteLine(d.out, m)
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
