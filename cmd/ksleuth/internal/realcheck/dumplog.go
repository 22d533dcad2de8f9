package realcheck

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
)

func ksleuthDump(t *testing.T, files []string, extra ...string) map[string][]map[string]any {
	t.Helper()
	args := append([]string{"dump", "--json", "--records", "--payload"}, extra...)
	out, errs, code := scanCmd(t, append(args, files...)...)
	if code != exitOK {
		t.Fatalf("ksleuth dump: exit %d\n%s", code, errs)
	}
	by := map[string][]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(sc.Text()))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			t.Fatalf("ksleuth dump --json: %v: %s", err, sc.Text())
		}
		f, _ := m["file"].(string)
		by[f] = append(by[f], m)
	}
	return by
}

// ksleuthText is `ksleuth dump --records --payload` parsed as
// kafka-dump-log output: its record lines carry the decoded key and
// payload in kafka-dump-log's notation where ksleuth has one.
func ksleuthText(t *testing.T, files []string) map[string]*DumpFile {
	t.Helper()
	out, errs, code := scanCmd(t, append([]string{"dump", "--records", "--payload"}, files...)...)
	if code != exitOK {
		t.Fatalf("ksleuth dump: exit %d\n%s", code, errs)
	}
	return ParseDumpLog(out)
}

// Comparison.

// dumpKinds are the file kinds compared, by how their names end.
var dumpKinds = []string{".log", ".index", ".timeindex", ".txnindex", ".snapshot", ".checkpoint"}

func dumpKind(path string) string {
	base := filepath.Base(path)
	for _, k := range dumpKinds {
		if strings.HasSuffix(base, k) {
			if k == ".checkpoint" && !kraftSnapshotName.MatchString(base) {
				return ""
			}
			return k
		}
	}
	return ""
}

// kraftSnapshotName is a KRaft snapshot: OFFSET-EPOCH.checkpoint.
var kraftSnapshotName = regexp.MustCompile(`^\d{20}-\d{10}\.checkpoint$`)

// decoderFor is the kafka-dump-log decoder option for a file, from its
// partition directory.
func decoderFor(path string) string {
	dir := filepath.Base(filepath.Dir(path))
	switch {
	case strings.HasPrefix(dir, "__consumer_offsets-"):
		return "--offsets-decoder"
	case strings.HasPrefix(dir, "__transaction_state-"):
		return "--transaction-log-decoder"
	case strings.HasPrefix(dir, "__cluster_metadata-"):
		return "--cluster-metadata-decoder"
	}
	return ""
}

// dumpCompare holds the outcome for one scenario.
type dumpCompare struct {
	files      map[string]int // by kind
	entries    map[string]int // by entry kind
	diffs      []string       // unexplained
	known      []string       // ksleuth gaps, reported: fail under KSLEUTH_REAL_KAFKA_STRICT=1
	exceptions map[string]int // documented, by reason
}

func (c *dumpCompare) diff(format string, a ...any) {
	c.diffs = append(c.diffs, fmt.Sprintf(format, a...))
}

// compareWithDumpLog runs kafka-dump-log and ksleuth dump on every file
// of the log dirs that kafka-dump-log reads, and compares them.
func compareWithDumpLog(t *testing.T, k *realkafka.Kafka, logDirs []string) *dumpCompare {
	t.Helper()
	c := &dumpCompare{files: map[string]int{}, entries: map[string]int{}, exceptions: map[string]int{}}
	groups := map[string][]string{} // decoder option -> files
	for _, dir := range logDirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || dumpKind(path) == "" {
				return err
			}
			groups[decoderFor(path)] = append(groups[decoderFor(path)], path)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, opt := range slices.Sorted(maps.Keys(groups)) {
		files := groups[opt]
		opts := []string{"--deep-iteration", "--print-data-log"}
		if opt != "" {
			opts = append(opts, opt)
		}
		dl, err := DumpLogFiles(k, files, opts)
		if err != nil {
			t.Fatal(err)
		}
		for f, reason := range dl.Crashed {
			if reason == "" {
				c.diff("%s: kafka-dump-log failed on it", f)
				continue
			}
			c.exceptions[reason]++
			c.files[dumpKind(f)]++
		}
		ks := ksleuthDump(t, files)
		var kt map[string]*DumpFile
		if opt != "" {
			kt = ksleuthText(t, files)
		}
		for _, f := range files {
			if _, ok := dl.Crashed[f]; ok {
				c.expectNoEntries(f, ks[f])
				continue
			}
			d := dl.Files[f]
			if d == nil {
				c.diff("%s: kafka-dump-log printed nothing for it", f)
				continue
			}
			c.files[dumpKind(f)]++
			c.compareFile(f, d, ks[f], kt[f])
		}
	}
	return c
}

// expectNoEntries checks ksleuth's dump of a file kafka-dump-log could
// not read: an index of an empty segment has no entry.
func (c *dumpCompare) expectNoEntries(name string, ks []map[string]any) {
	for _, o := range ks {
		if o["type"] != "finding" {
			c.diff("%s: ksleuth printed a %v for the index of an empty segment", name, o["type"])
			return
		}
	}
}

func (c *dumpCompare) compareFile(name string, d *DumpFile, ks []map[string]any, kt *DumpFile) {
	var objs []map[string]any
	zeroFromEntry0 := false
	for _, o := range ks {
		if o["type"] == "finding" {
			switch {
			case o["kind"] == "index-zero-tail" && o["severity"] == "note":
				// The active segment's index files are preallocated.
				c.exceptions["ksleuth notes the zero-filled (preallocated) tail of an active segment's index"]++
				zeroFromEntry0 = zeroFromEntry0 || strings.HasPrefix(fmt.Sprint(o["message"]), "entry 0:")
			case o["kind"] == "unknown-version":
				c.known = append(c.known, fmt.Sprintf("%s: ksleuth's decoder does not know a record version this release writes: %v",
					filepath.Base(filepath.Dir(name)), o["message"]))
			default:
				c.diff("%s: ksleuth finding on a broker-written file: %v [%v, %v]", name, o["message"], o["kind"], o["severity"])
			}
			continue
		}
		objs = append(objs, o)
	}
	if zeroFromEntry0 && len(d.entries) == len(objs)+1 && len(d.entries) > 0 && d.entries[0].kind != "batch" {
		// kafka-dump-log prints slot 0 of an index with no entry yet
		// (all zeros) as an entry at the base offset; ksleuth reports
		// the slot as part of the zero-filled tail.
		if e := d.entries[0]; e.fields["position"] == "0" || e.fields["timestamp"] == "0" {
			c.exceptions["kafka-dump-log prints the empty slot 0 of a preallocated index as an entry"]++
			d.entries = d.entries[1:]
		}
	}
	for _, line := range d.other {
		if reason, ok := dumpLogNote(name, line); ok {
			c.exceptions[reason]++
			continue
		}
		c.diff("%s: kafka-dump-log says %q", name, line)
	}
	var ktRecords []*DumpEntry
	if kt != nil {
		for _, e := range kt.entries {
			if e.kind == "record" {
				ktRecords = append(ktRecords, e)
			}
		}
	}
	if len(d.entries) != len(objs) {
		c.diff("%s: kafka-dump-log printed %d entries, ksleuth %d", name, len(d.entries), len(objs))
	}
	rec := 0
	for i := range min(len(d.entries), len(objs)) {
		e, o := d.entries[i], objs[i]
		c.entries[e.kind]++
		where := fmt.Sprintf("%s: line %d (%s)", name, e.line, e.kind)
		if o["type"] != e.kind {
			c.diff("%s: ksleuth has a %v here", where, o["type"])
			continue
		}
		for _, f := range e.names {
			got, ok := jsonField(o, f)
			if !ok {
				c.diff("%s: field %s missing from ksleuth's JSON", where, f)
				continue
			}
			if got != e.fields[f] {
				c.diff("%s: %s: kafka-dump-log %q, ksleuth %q", where, f, e.fields[f], got)
			}
		}
		if e.kind != "record" {
			continue
		}
		var kr *DumpEntry
		if rec < len(ktRecords) {
			kr = ktRecords[rec]
		}
		rec++
		c.compareRecordTail(where, e, o, kr)
	}
}

// jsonField renders ksleuth's JSON value for a kafka-dump-log field as
// kafka-dump-log prints it. The JSON keys are snake_case column names
// (jsonKey); Kafka's "none" is a null there.
func jsonField(o map[string]any, name string) (string, bool) {
	key := jsonKey(o, name)
	if tsType(name) && o["timestamp_type"] != name {
		return fmt.Sprintf("%v (timestamp_type %v)", o[key], o["timestamp_type"]), true
	}
	v, ok := o[key]
	if !ok {
		return "", false
	}
	switch key {
	case "delete_horizon_ms", "current_txn_first_offset":
		if v == nil {
			return "OptionalLong.empty", true
		}
		return "OptionalLong[" + fmt.Sprint(v) + "]", true
	case "control_type":
		// Releases before 4.1 print a KRaft control record as NAME(ID).
		return fmt.Sprintf("%v(%v)", v, o["control_type_id"]), true
	case "header_keys":
		var ks []string
		for _, k := range v.([]any) {
			ks = append(ks, fmt.Sprint(k))
		}
		return strings.Join(ks, ","), true
	case "timestamp", "max_timestamp", "first_timestamp", "last_timestamp":
		if v == nil {
			return "-1", true
		}
	}
	return fmt.Sprint(v), true
}

func tsType(name string) bool {
	return name == "CreateTime" || name == "LogAppendTime" || name == "NoTimestampType"
}

// jsonKey is the key of ksleuth's dump --json under which a kafka-dump-log
// field is: the column name where the field has a column, else the field
// name in snake_case. The field named after the timestamp type is a
// batch's max_timestamp or a record's timestamp.
func jsonKey(o map[string]any, name string) string {
	switch {
	case tsType(name) && o["type"] == "batch":
		return "max_timestamp"
	case tsType(name):
		return "timestamp"
	}
	switch name {
	case "isvalid", "isValid":
		return "crc_valid"
	case "count":
		return "record_count"
	case "compresscodec":
		return "codec"
	case "size":
		return "size_bytes"
	}
	var b strings.Builder
	for i, c := range name {
		if c >= 'A' && c <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}

// compareRecordTail compares a record's key and payload: the raw text
// for user topics, the decoded content for internal ones.
func (c *dumpCompare) compareRecordTail(where string, e *DumpEntry, o map[string]any, kt *DumpEntry) {
	dec, decoded := o["decoded"].(map[string]any)
	if !decoded {
		if e.control != "" {
			c.diff("%s: kafka-dump-log decoded a control record (%s) ksleuth did not", where, e.control)
		}
		for _, p := range []struct {
			name, text string
			has        bool
		}{{"key", e.key, e.hasKey}, {"value", e.payload, e.hasPayload}} {
			got, ok := o[p.name].(string)
			if ok && o[p.name+"_encoding"] == "hex" {
				got = "0x" + got // as the text dump shows bytes that are not text
			}
			switch {
			case ok != p.has:
				c.diff("%s: %s present in kafka-dump-log: %v, in ksleuth: %v", where, p.name, p.has, ok)
			case ok && got != p.text:
				c.diff("%s: %s: kafka-dump-log %q, ksleuth %q", where, p.name, trunc(p.text), trunc(got))
			}
		}
		return
	}
	if e.control != "" {
		c.compareControl(where, e.control, dec)
		return
	}
	if _, txn := dec["txnKey"]; txn && strings.HasPrefix(e.key, "transaction_metadata::") {
		c.compareTxnText(where, e, kt)
		return
	}
	if e.hasKey {
		c.compareDecoded(where+" key", e.key, dec, true)
	}
	if e.hasPayload {
		c.compareDecoded(where+" payload", e.payload, dec, false)
	}
}

// compareTxnText compares a transaction log record in the notation of
// releases before 4.1 (transaction_metadata::transactionalId=...,
// producerId:N,...) with ksleuth's text dump, which prints that notation
// and appends the fields it leaves out.
func (c *dumpCompare) compareTxnText(where string, e, kt *DumpEntry) {
	if kt == nil {
		c.diff("%s: no ksleuth text record to compare the transaction log notation with", where)
		return
	}
	if kt.key != e.key {
		c.diff("%s: key: kafka-dump-log %q, ksleuth %q", where, e.key, kt.key)
	}
	if kt.payload != e.payload && !strings.HasPrefix(kt.payload, e.payload+",") {
		c.diff("%s: payload: kafka-dump-log %q, ksleuth %q", where, trunc(e.payload), trunc(kt.payload))
	}
}

func trunc(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// compareControl compares a decoded KRaft control record, which
// kafka-dump-log prints as "Name: {json}" or "Name {json}".
func (c *dumpCompare) compareControl(where, text string, dec map[string]any) {
	i := strings.IndexByte(text, '{')
	if i < 0 {
		c.diff("%s: control record %q not understood", where, text)
		return
	}
	var dl map[string]any
	if err := json.Unmarshal([]byte(text[i:]), &dl); err != nil {
		c.diff("%s: control record %q: %v", where, text, err)
		return
	}
	ctl, _ := dec["control"].(map[string]any)
	name := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text[:i]), ":"))
	if ctl == nil || upperSnake(name) != ctl["type"] {
		c.diff("%s: control record %s; ksleuth decoded %v", where, name, dec["control"])
		return
	}
	c.compareLeaves(where, flatten("", dl), flatten("", ctl))
}

// compareDecoded compares a key or payload of an internal topic:
// kafka-dump-log prints {"type":..,"data":{..}} for keys and
// {"version":..,"data":{..}} (metadata: {"type","version","data"}) for
// values; ksleuth's JSON has a structured "decoded" object.
func (c *dumpCompare) compareDecoded(where, text string, dec map[string]any, isKey bool) {
	if text == "<DELETE>" || text == "null" {
		if dec["tombstone"] != true {
			c.diff("%s: kafka-dump-log shows a tombstone, ksleuth %v", where, dec)
		}
		return
	}
	var dl map[string]any
	if err := json.Unmarshal([]byte(text), &dl); err != nil {
		c.diff("%s: kafka-dump-log's %q is not JSON: %v", where, trunc(text), err)
		return
	}
	var ks map[string]any
	for _, part := range decodedParts(dec, isKey) {
		if m, ok := dec[part].(map[string]any); ok {
			ks = m
		}
	}
	if ks == nil {
		c.diff("%s: kafka-dump-log decoded %s, ksleuth did not (%v)", where, trunc(text), dec)
		return
	}
	want := flatten("", dl)
	got := flatten("", ks)
	// kafka-dump-log nests the fields under "data" and prints the key
	// type and value version as strings; ksleuth keeps them flat and
	// numeric. Metadata keeps "data" on both sides.
	if _, meta := dec["metadata"]; meta {
		if t, ok := dl["type"].(string); ok {
			if kt, _ := ks["type"].(string); metadataTypeName(kt) != t {
				c.diff("%s: type: kafka-dump-log %s, ksleuth %s", where, t, kt)
			}
			delete(want, "type")
		}
	} else {
		want = map[string]string{}
		for k, v := range flatten("", dl) {
			k = strings.TrimPrefix(k, "data.")
			if k == "type" || k == "version" {
				v = strings.Trim(v, `"`)
			}
			want[k] = v
		}
	}
	got = renameDecoded(got)
	if _, meta := dec["metadata"]; meta && hasPrefixKey(want, "data.") && !hasPrefixKey(got, "data.") {
		c.known = append(c.known, fmt.Sprintf("ksleuth does not decode the fields of metadata record %s (v%s)", dl["type"], want["version"]))
		return
	}
	if _, ok := dec["txnKey"]; ok && isKey {
		// A transaction log key's "type" is its schema version.
		if v, ok := got["version"]; ok {
			got["type"] = v
		}
	}
	c.compareLeaves(where, want, got)
}

func hasPrefixKey(m map[string]string, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// decodedParts names the parts of ksleuth's decoded object that hold a
// key or a value.
func decodedParts(dec map[string]any, isKey bool) []string {
	if isKey {
		return []string{"txnKey", "groupKey"}
	}
	return []string{"txnValue", "offsetCommit", "groupMetadata", "metadata"}
}

// decodedAliases maps ksleuth's field names to the schema names
// kafka-dump-log prints (its transaction log JSON uses the schema's
// long names).
var decodedAliases = map[string]string{
	"state":                 "transactionStatus",
	"partitions":            "transactionPartitions",
	"lastUpdateTimestampMs": "transactionLastUpdateTimestampMs",
	"startTimestampMs":      "transactionStartTimestampMs",
}

func renameDecoded(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		first, rest, _ := strings.Cut(k, ".")
		if a, ok := decodedAliases[strings.SplitN(first, "[", 2)[0]]; ok {
			first = a + strings.TrimPrefix(first, strings.SplitN(first, "[", 2)[0])
		}
		if rest != "" {
			first += "." + rest
		}
		out[first] = v
	}
	return out
}

// compareLeaves checks that every leaf kafka-dump-log printed has the
// same value in ksleuth's; leaves only ksleuth has are extra detail.
func (c *dumpCompare) compareLeaves(where string, want, got map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[k]
		if !ok && embeddedProtocol.MatchString(k) {
			// ksleuth gives the sizes of a member's subscription and
			// assignment; kafka-dump-log decodes the consumer protocol
			// inside them.
			if _, sized := got[embeddedProtocol.FindString(k)+"Size"]; sized {
				c.known = append(c.known, "ksleuth does not decode a group member's subscription and assignment (consumer protocol)")
				continue
			}
		}
		if !ok && k == "topicId" {
			c.known = append(c.known, "ksleuth does not decode the topicId of OffsetCommitValue v4")
			continue
		}
		if !ok {
			if reason, ok := decodedException(k, want[k]); ok {
				c.exceptions[reason]++
				continue
			}
			c.diff("%s: %s=%s missing in ksleuth", where, k, want[k])
			continue
		}
		if g != want[k] {
			c.diff("%s: %s: kafka-dump-log %s, ksleuth %s", where, k, want[k], g)
		}
	}
}

// embeddedProtocol is a group member's subscription or assignment leaf.
var embeddedProtocol = regexp.MustCompile(`^members\[\d+\]\.(subscription|assignment)`)

// flatten renders a JSON tree as path=value leaves ("a.b[0].c").
func flatten(prefix string, v any) map[string]string {
	out := map[string]string{}
	var walk func(p string, v any)
	walk = func(p string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if p == "" {
					walk(k, e)
				} else {
					walk(p+"."+k, e)
				}
			}
		case []any:
			if len(x) == 0 {
				out[p] = "[]"
			}
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", p, i), e)
			}
		case float64:
			out[p] = strconv.FormatFloat(x, 'f', -1, 64)
		case json.Number:
			out[p] = x.String()
		case nil:
			out[p] = "null"
		default:
			b, _ := json.Marshal(x)
			out[p] = string(b)
		}
	}
	walk(prefix, v)
	return out
}

// metadataTypeName is the schema name kafka-dump-log prints for
// ksleuth's metadata record type name.
func metadataTypeName(ksleuth string) string {
	switch ksleuth {
	case "ZkMigration":
		return "ZK_MIGRATION_STATE_RECORD"
	}
	return upperSnake(ksleuth) + "_RECORD"
}

// upperSnake turns FeatureLevel or LeaderChange into FEATURE_LEVEL or
// LEADER_CHANGE.
func upperSnake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// dumpLogNote accepts the informational lines kafka-dump-log prints
// besides entries, each for a documented reason (docs/real-kafka.md).
func dumpLogNote(file, line string) (string, bool) {
	switch {
	case strings.HasPrefix(line, "Log starting offset: "):
		return "log starting offset line (ksleuth's JSON has it in the file name)", true
	case strings.HasPrefix(line, "Snapshot end offset: "):
		return "KRaft snapshot end offset line (the file name)", true
	case line == file+" is empty.":
		return "empty index line (ksleuth's JSON has no entry for it either)", true
	}
	return "", false
}

// decodedException accepts a decoded field kafka-dump-log prints and
// ksleuth does not, each for a documented reason.
func decodedException(path, value string) (string, bool) {
	return "", false
}

func (c *dumpCompare) report(t *testing.T, scenario string) {
	t.Helper()
	var kinds []string
	total := 0
	for _, k := range dumpKinds {
		if n := c.files[k]; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
			total += n
		}
	}
	var ents []string
	for _, k := range slices.Sorted(maps.Keys(c.entries)) {
		ents = append(ents, fmt.Sprintf("%s %d", k, c.entries[k]))
	}
	t.Logf("kafka-dump-log vs ksleuth dump, %s: %d files (%s); entries %s; %d unexplained differences",
		scenario, total, strings.Join(kinds, ", "), strings.Join(ents, ", "), len(c.diffs))
	for _, r := range slices.Sorted(maps.Keys(c.exceptions)) {
		t.Logf("  documented exception x%d: %s", c.exceptions[r], r)
	}
	known := map[string]int{}
	for _, k := range c.known {
		known[k]++
	}
	for _, k := range slices.Sorted(maps.Keys(known)) {
		knownIssue(t, "x%d %s", known[k], k)
	}
	cats := map[string]int{}
	for _, d := range c.diffs {
		cats[diffCategory(d)]++
	}
	for _, k := range slices.Sorted(maps.Keys(cats)) {
		t.Logf("  difference category x%d: %s", cats[k], k)
	}
	for i, d := range c.diffs {
		if i == 40 {
			t.Errorf("... and %d more differences", len(c.diffs)-40)
			break
		}
		t.Errorf("difference: %s", d)
	}
}

var digits = regexp.MustCompile(`[0-9]+`)

// diffCategory strips a difference of its file path and numbers, to
// count differences of one kind.
func diffCategory(d string) string {
	if i := strings.Index(d, "/data/"); i >= 0 {
		d = d[i+len("/data/"):]
	}
	if len(d) > 160 {
		d = d[:160]
	}
	return digits.ReplaceAllString(d, "N")
}
