package realcheck

import (
	"bufio"
	"os"
	"strings"
	"unicode"

	"github.com/ksleuth/ksleuth/cmd/ksleuth-gen/realkafka"
)

// The kafka-dump-log side: its output parsed into entries of named
// fields, file by file.

// DumpEntry is one line kafka-dump-log printed for a file: a batch, a
// record, an index, time index, transaction index or snapshot entry.
type DumpEntry struct {
	kind   string // batch, record, index_entry, timeindex_entry, txn_entry, snapshot_entry
	line   int
	fields map[string]string
	names  []string // fields in printed order
	// For records: the key and payload text, or the text of a decoded
	// KRaft control record ("LeaderChange: {...}").
	key, payload, control string
	hasKey, hasPayload    bool
}

// DumpFile is what kafka-dump-log printed for one file.
type DumpFile struct {
	name    string
	entries []*DumpEntry
	// other holds lines that are none of the above (the tool's notes and
	// index checks).
	other []string
}

// The checks outside this package read a parsed line through these.

// Entries are the file's entries in printed order.
func (f *DumpFile) Entries() []*DumpEntry { return f.entries }

// Kind is batch, record, index_entry, timeindex_entry, txn_entry or
// snapshot_entry.
func (e *DumpEntry) Kind() string { return e.kind }

// Line is the entry's line in kafka-dump-log's output.
func (e *DumpEntry) Line() int { return e.line }

// Field is the value printed after "name:" ("" when there is none).
func (e *DumpEntry) Field(name string) string { return e.fields[name] }

// Key is a record's key text, and whether the line has one.
func (e *DumpEntry) Key() (string, bool) { return e.key, e.hasKey }

// Payload is a record's payload text, and whether the line has one.
func (e *DumpEntry) Payload() (string, bool) { return e.payload, e.hasPayload }

// parseFields reads "name: value name: value ..." where a name is one
// word followed by a colon.
func parseFields(s string) (map[string]string, []string) {
	m := map[string]string{}
	var names []string
	var cur string
	for _, tok := range strings.Fields(s) {
		if strings.HasSuffix(tok, ":") && len(tok) > 1 && isWord(tok[:len(tok)-1]) {
			cur = tok[:len(tok)-1]
			names = append(names, cur)
			m[cur] = ""
			continue
		}
		if cur == "" {
			continue
		}
		if m[cur] != "" {
			m[cur] += " "
		}
		m[cur] += tok
	}
	return m, names
}

func isWord(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			return false
		}
	}
	return s != ""
}

// ParseDumpLog reads kafka-dump-log's output into files by name.
func ParseDumpLog(out string) map[string]*DumpFile {
	files := map[string]*DumpFile{}
	var f *DumpFile
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 64<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "Dumping "); ok {
			f = &DumpFile{name: name}
			files[name] = f
			continue
		}
		if f == nil || line == "" {
			continue
		}
		e := &DumpEntry{line: n}
		switch {
		case strings.HasPrefix(line, "baseOffset: "):
			e.kind = "batch"
		case strings.HasPrefix(line, "| offset: "):
			e.kind = "record"
			parseRecordLine(e, line[2:])
			f.entries = append(f.entries, e)
			continue
		case strings.HasPrefix(line, "offset: ") && strings.Contains(line, " position: ") && len(strings.Fields(line)) == 4:
			e.kind = "index_entry"
		case strings.HasPrefix(line, "timestamp: ") && len(strings.Fields(line)) == 4:
			e.kind = "timeindex_entry"
		case strings.HasPrefix(line, "version: ") && strings.Contains(line, " lastStableOffset: "):
			e.kind = "txn_entry"
		case strings.HasPrefix(line, "producerId: ") && strings.Contains(line, " producerEpoch: "):
			e.kind = "snapshot_entry"
		default:
			f.other = append(f.other, line)
			continue
		}
		e.fields, e.names = parseFields(line)
		f.entries = append(f.entries, e)
	}
	return files
}

// parseRecordLine splits a record line into its plain fields and the
// free-form tail: key and payload (whose text may hold anything), an end
// transaction marker, or a decoded control record.
func parseRecordLine(e *DumpEntry, line string) {
	i := strings.Index(line, "headerKeys: [")
	head, tail := line, ""
	if i >= 0 {
		if j := strings.IndexByte(line[i:], ']'); j >= 0 {
			head, tail = line[:i+j+1], line[i+j+1:]
		}
	} else if j := firstIndex(line, " key: ", " payload: "); j >= 0 {
		// A legacy (magic 0/1) message has no headers: its key or payload
		// follows the crc.
		head, tail = line[:j], line[j:]
	}
	e.fields, e.names = parseFields(head)
	if i >= 0 {
		// Header keys are printed [a,b]: keep the brackets' content whole.
		e.fields["headerKeys"] = strings.TrimSuffix(strings.TrimPrefix(head[i:], "headerKeys: ["), "]")
	}
	tail = strings.TrimPrefix(tail, " ")
	switch {
	case tail == "":
	case strings.HasPrefix(tail, "endTxnMarker: "), strings.HasPrefix(tail, "controlType: "):
		m, names := parseFields(tail)
		for _, k := range names {
			e.fields[k] = m[k]
		}
		e.names = append(e.names, names...)
	case strings.HasPrefix(tail, "key: "):
		e.hasKey = true
		rest := tail[len("key: "):]
		if k := strings.Index(rest, " payload: "); k >= 0 {
			e.key, e.payload, e.hasPayload = rest[:k], rest[k+len(" payload: "):], true
		} else {
			e.key = rest
		}
	case strings.HasPrefix(tail, "payload: "):
		e.payload, e.hasPayload = tail[len("payload: "):], true
	default:
		e.control = tail
	}
}

// firstIndex is the index of the first of subs in s, -1 when none is.
func firstIndex(s string, subs ...string) int {
	best := -1
	for _, sub := range subs {
		if i := strings.Index(s, sub); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	return best
}

// DumpLogResult is kafka-dump-log's output by file, and the files it
// failed on with the documented reason ("" for none).
type DumpLogResult struct {
	Files   map[string]*DumpFile
	Crashed map[string]string
}

// DumpLogFiles runs kafka-dump-log on all files in one JVM, and file by
// file when that fails, to tell which file it fails on.
func DumpLogFiles(k *realkafka.Kafka, files, opts []string) (*DumpLogResult, error) {
	r := &DumpLogResult{Files: map[string]*DumpFile{}, Crashed: map[string]string{}}
	out, err := k.DumpLog(files, opts...)
	if err == nil {
		r.Files = ParseDumpLog(out)
		return r, nil
	}
	for _, f := range files {
		out, err := k.DumpLog([]string{f}, opts...)
		if err != nil {
			r.Crashed[f] = dumpLogCrash(f, err)
			continue
		}
		for name, d := range ParseDumpLog(out) {
			r.Files[name] = d
		}
	}
	return r, nil
}

// dumpLogCrash names the documented cases where kafka-dump-log fails on
// a file the broker wrote.
func dumpLogCrash(f string, err error) string {
	if strings.HasSuffix(f, ".index") && strings.Contains(err.Error(), "NoSuchElementException") && strings.Contains(err.Error(), "dumpIndex") {
		if st, serr := os.Stat(strings.TrimSuffix(f, ".index") + ".log"); serr == nil && st.Size() == 0 {
			return "kafka-dump-log throws NoSuchElementException on the preallocated index of an empty active segment"
		}
	}
	return ""
}
