package records

import (
	"fmt"
	"io"
	"strings"

	"github.com/ksleuth/ksleuth/analysis/payload"
	"github.com/ksleuth/ksleuth/analysis/records"
	"github.com/ksleuth/ksleuth/analysis/report/payloadenc"
)

// maxAbsentLines bounds the partition dirs WriteAbsent names one by one.
const maxAbsentLines = 10

// WriteAbsent says which offsets of the selected range are not on disk,
// so that a selection that finds fewer records than it asks for is never
// silent. The dirs that hold no batch at all are counted on one line.
func WriteAbsent(w io.Writer, as []records.Absent, sources []string) {
	var empty []string
	n := 0
	for _, a := range as {
		name := a.Dir
		if name == "." { // the input itself, a partition dir (analysis.PartitionDir)
			name = ""
		}
		if len(sources) > 1 && int(a.Input) < len(sources) {
			name = sources[a.Input] + ":" + name
		}
		switch {
		case a.Dir != ".":
		case a.Partition >= 0:
			name += fmt.Sprintf("%s-%d", a.Topic, a.Partition)
		default:
			name += "the input's segments"
		}
		if a.Empty {
			empty = append(empty, name)
			continue
		}
		if n++; n <= maxAbsentLines {
			fmt.Fprintf(w, "records: offsets %s are not on disk in %s: %s\n", a.Range(), name, a.Why())
		}
	}
	if n > maxAbsentLines {
		fmt.Fprintf(w, "records: %d more offset ranges are not on disk\n", n-maxAbsentLines)
	}
	if len(empty) > 0 {
		list := strings.Join(empty[:min(len(empty), 3)], ", ")
		if len(empty) > 3 {
			list += fmt.Sprintf(" and %d more", len(empty)-3)
		}
		fmt.Fprintf(w, "records: offsets %s are not on disk in %d partition dir(s) whose segments hold no batch: %s\n",
			as[0].Range(), len(empty), list)
	}
	if len(as) > 0 {
		fmt.Fprintln(w, "records: `ksleuth verify` tells why offsets are not on disk (retention, compaction, damage, a copy taken early)")
	}
}

// WriteStats says how much of the inputs a run read.
func WriteStats(w io.Writer, st records.Stats) {
	fmt.Fprintf(w, "records: %d records; read %d of %d segments (%d from an index position, %d indexes not usable), %d bytes\n",
		st.Records, st.Read, st.Segments, st.Seeked, st.Fallbacks, st.BytesRead)
}

// UndecodedFraming returns what a value in the Confluent wire format that
// did not decode by reg is, as dump prints beside its raw bytes: the
// schema id and why it was not decoded; "" for a value not in that format.
func UndecodedFraming(reg *payload.Registry) func(topic string, value []byte) string {
	return func(topic string, value []byte) string {
		d, ok := reg.DecodeValue(topic, value)
		if !ok || d.JSON != nil {
			return ""
		}
		return payloadenc.Framing(d)
	}
}
