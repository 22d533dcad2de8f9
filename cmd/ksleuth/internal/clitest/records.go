package clitest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// RecordLine is one record line of `records --json --payload-encoding
// hex`.
type RecordLine struct {
	Source    string  `json:"source"`
	File      string  `json:"file"`
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	Offset    int64   `json:"offset"`
	Timestamp *int64  `json:"timestamp"`
	PID       int64   `json:"producer_id"`
	Epoch     int16   `json:"producer_epoch"`
	Seq       int32   `json:"sequence"`
	Key       *string `json:"key"`
	KeyEnc    *string `json:"key_encoding"`
	Value     *string `json:"value"`
	Headers   []struct {
		Key   string  `json:"key"`
		Value *string `json:"value"`
	} `json:"headers"`
}

// SQL renders the record as duckdb_records.cjs prints a row.
func (r *RecordLine) SQL() string {
	opt := func(p *string) string {
		if p == nil {
			return "NULL"
		}
		return *p
	}
	ts := ""
	if r.Timestamp != nil {
		ts = fmt.Sprint(*r.Timestamp)
	}
	hs := make([]string, len(r.Headers))
	for i, h := range r.Headers {
		hs[i] = h.Key + "=" + opt(h.Value)
	}
	return strings.Join([]string{r.Source, r.File, fmt.Sprint(r.Offset), ts, fmt.Sprint(r.PID), fmt.Sprint(r.Epoch), fmt.Sprint(r.Seq),
		opt(r.Key), opt(r.Value), strings.Join(hs, ",")}, "|")
}

// RecordsArgs starts a `records` run whose output ParseRecords reads.
var RecordsArgs = []string{"records", "--json", "--payload-encoding", "hex"}

// ParseRecords reads the output of a RecordsArgs run. With damaged set
// it counts the finding lines; without, a finding line fails the test
// (the inputs are intact), as does any line that is not a record.
func ParseRecords(t testing.TB, damaged bool, out string) (recs []RecordLine, findings int) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		if damaged && strings.HasPrefix(l, `{"type":"finding"`) {
			findings++
			continue
		}
		if !strings.HasPrefix(l, `{"type":"record"`) {
			t.Fatalf("records: not a record line: %s", l)
		}
		var r RecordLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs, findings
}
