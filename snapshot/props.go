package snapshot

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// UUID is a Kafka Uuid: 16 bytes, written as 22 characters of URL-safe
// base64 without padding (Uuid.toString).
type UUID [16]byte

// String is Kafka's Uuid.toString form.
func (u UUID) String() string { return base64.RawURLEncoding.EncodeToString(u[:]) }

// IsZero reports whether u is Uuid.ZERO_UUID, which Kafka never assigns.
func (u UUID) IsZero() bool { return u == UUID{} }

// ParseUUID decodes Kafka's Uuid string form like Uuid.fromString: URL-safe
// base64 of exactly 16 bytes, padding optional.
func ParseUUID(s string) (UUID, error) {
	var u UUID
	if len(s) > 24 {
		return u, fmt.Errorf("%q is too long for a Kafka Uuid (22 characters of URL-safe base64)", clip(s))
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return u, fmt.Errorf("%q is not a Kafka Uuid (22 characters of URL-safe base64): %v", clip(s), err)
	}
	if len(b) != len(u) {
		return u, fmt.Errorf("%q decodes to %d bytes, want the 16 of a Kafka Uuid", clip(s), len(b))
	}
	copy(u[:], b)
	return u, nil
}

// PartitionMetadata is a partition's partition.metadata file (Kafka 2.8+):
// exactly "version: 0\ntopic_id: <uuid>".
type PartitionMetadata struct {
	Path     string
	Leftover bool
	// Version is -1 when the version line was not read.
	Version int
	// TopicID is valid only when HasTopicID: the topic_id line was read.
	TopicID    UUID
	HasTopicID bool
	// Notes are oddities that are not errors (an unknown but valid version).
	Notes []string
}

// ParsePartitionMetadata parses partition.metadata like the broker
// (PartitionMetadataReadBuffer): two lines split on ":" plus whitespace. An
// all-zero topic id is returned together with an ErrZeroUUID error, a
// 0-byte file with ErrEmpty.
func ParsePartitionMetadata(path string, data []byte) (*PartitionMetadata, error) {
	m, err := parsePartitionMetadata(path, data)
	return m, tagKind(err, KindPartitionMetadata)
}

func parsePartitionMetadata(path string, data []byte) (*PartitionMetadata, error) {
	m := &PartitionMetadata{Path: path, Leftover: isLeftover(path), Version: -1}
	if len(data) == 0 {
		return m, errAt(path, 0, 0, ErrEmpty, "0 bytes, want \"version: 0\" and \"topic_id: <uuid>\" lines")
	}
	s := &lineScanner{data: data}
	field := func(key string) (string, *FormatError) {
		if !s.next() {
			return "", errAt(path, int64(len(data)), s.num+1, ErrTruncated, "the file ends, want a %q line", key+": ...")
		}
		k, v, ok := strings.Cut(s.line, ":")
		if !ok || k != key || v == "" || (v[0] != ' ' && v[0] != '\t') {
			return "", errAt(path, s.off, s.num, ErrSyntax, "got %q, want %q", clip(s.line), key+": ...")
		}
		return strings.TrimSpace(v), nil
	}
	v, ferr := field("version")
	if ferr != nil {
		return m, ferr
	}
	ver, err := strconv.Atoi(v)
	if err != nil || ver < 0 {
		return m, errAt(path, s.off, s.num, ErrSyntax, "version %q, want a number (0)", clip(v))
	}
	m.Version = ver
	if ver != 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("version %d (only 0 is written)", ver))
	}
	v, ferr = field("topic_id")
	if ferr != nil {
		return m, ferr
	}
	u, err := ParseUUID(v)
	if err != nil {
		return m, errAt(path, s.off, s.num, ErrSyntax, "topic_id: %v", err)
	}
	m.TopicID, m.HasTopicID = u, true
	idLine, idOff := s.num, s.off
	for s.next() {
		if strings.TrimSpace(s.line) != "" {
			return m, errAt(path, s.off, s.num, ErrTrailing, "got %q, want the end of the file after topic_id", clip(s.line))
		}
	}
	if u.IsZero() {
		return m, errAt(path, idOff, idLine, ErrZeroUUID, "the broker rejects this file")
	}
	return m, nil
}

// MetaProperties is a log dir's meta.properties (Java Properties format).
type MetaProperties struct {
	Path     string
	Leftover bool
	// Props holds every key/value pair; Lines the 1-based line of each key.
	Props map[string]string
	Lines map[string]int
	// Version is 0 (ZooKeeper mode: broker.id) or 1 (KRaft: node.id); -1
	// when missing.
	Version int
	// BrokerID (version 0) and NodeID (version 1), -1 when absent.
	BrokerID int32
	NodeID   int32
	// ClusterID as written; HasClusterID is false when the key is missing
	// (files written before Kafka 2.4 have none). It may be empty or free text.
	ClusterID    string
	HasClusterID bool
	// DirectoryID (Kafka 3.7+), "" when absent.
	DirectoryID string
	CRLF        bool
	// Notes are oddities worth reporting that the broker tolerates.
	Notes []string
}

// ID is the broker id (version 0) or node id (version 1), -1 if absent.
func (m *MetaProperties) ID() int32 {
	if m.Version == 1 || m.BrokerID < 0 {
		return m.NodeID
	}
	return m.BrokerID
}

// ParseMetaProperties parses meta.properties. Errors (a *FormatError, with
// the line when one is at fault): a 0-byte file (ErrEmpty), missing or
// non-numeric version (ErrSyntax), a version other than 0 or 1
// (ErrVersion), a version-1 file without node.id or a non-numeric id
// (ErrSyntax). An empty, missing or free-text cluster.id is a note, not an
// error.
func ParseMetaProperties(path string, data []byte) (*MetaProperties, error) {
	m, err := parseMetaProperties(path, data)
	return m, tagKind(err, KindMetaProperties)
}

func parseMetaProperties(path string, data []byte) (*MetaProperties, error) {
	m := &MetaProperties{Path: path, Leftover: isLeftover(path), Version: -1, BrokerID: -1, NodeID: -1}
	if len(data) == 0 {
		m.Props, m.Lines = map[string]string{}, map[string]int{}
		return m, errAt(path, 0, 0, ErrEmpty, "0 bytes, want key=value lines with version, broker.id or node.id, cluster.id")
	}
	m.Props, m.Lines, m.CRLF = parseProperties(data)
	if m.CRLF {
		m.Notes = append(m.Notes, "CRLF line endings (written on Windows)")
	}
	var errs findings
	intProp := func(key string, bits int) (int64, bool) {
		v, ok := m.Props[key]
		if !ok {
			return -1, false
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, bits)
		if err != nil {
			errs.add(errAt(path, -1, m.Lines[key], ErrSyntax, "%s=%q, want a decimal integer", key, clip(v)))
			return -1, false
		}
		return n, true
	}
	if v, ok := intProp("version", 32); ok {
		m.Version = int(v)
		if v != 0 && v != 1 {
			errs.add(errAt(path, -1, m.Lines["version"], ErrVersion, "version=%d, want 0 or 1", v))
		}
	} else if _, present := m.Props["version"]; !present {
		errs.add(errAt(path, 0, 0, ErrSyntax, "no version key, want version=0 (ZooKeeper mode) or version=1 (KRaft)"))
	}
	if v, ok := intProp("broker.id", 32); ok {
		m.BrokerID = int32(v)
	}
	if v, ok := intProp("node.id", 32); ok {
		m.NodeID = int32(v)
	}
	if m.Version == 1 && m.NodeID < 0 {
		if _, present := m.Props["node.id"]; !present {
			errs.add(errAt(path, 0, 0, ErrSyntax, "version=1 without node.id, want a node.id key"))
		}
	}
	if m.Version == 0 && m.BrokerID < 0 {
		m.Notes = append(m.Notes, "version=0 without broker.id")
	}
	m.ClusterID, m.HasClusterID = m.Props["cluster.id"]
	switch {
	case !m.HasClusterID:
		m.Notes = append(m.Notes, "no cluster.id (written before Kafka 2.4)")
	case m.ClusterID == "":
		m.Notes = append(m.Notes, "cluster.id is empty")
	default:
		if _, err := ParseUUID(m.ClusterID); err != nil {
			m.Notes = append(m.Notes, fmt.Sprintf("cluster.id %q is not a base64 uuid", clip(m.ClusterID)))
		}
	}
	m.DirectoryID = m.Props["directory.id"]
	if m.DirectoryID != "" {
		if _, err := ParseUUID(m.DirectoryID); err != nil {
			m.Notes = append(m.Notes, fmt.Sprintf("directory.id %q is not a base64 uuid", clip(m.DirectoryID)))
		}
	}
	// errAt was given offset -1 where only a line is known; point those at
	// the line's start instead so every position lies inside the input.
	fixOffsets(errs.errs, data)
	return m, errs.err()
}

// fixOffsets replaces negative offsets of FormatErrors with the byte offset
// of their line (or 0).
func fixOffsets(errs []error, data []byte) {
	for _, err := range errs {
		var fe *FormatError
		if errors.As(err, &fe) && fe.Offset < 0 {
			fe.Offset = lineOffset(data, fe.Line)
		}
	}
}

func lineOffset(data []byte, line int) int64 {
	s := &lineScanner{data: data}
	for s.next() {
		if s.num == line {
			return s.off
		}
	}
	return 0
}

// parseProperties reads Java Properties.load syntax: '#' or '!' comments,
// blank lines, "key=value", "key:value" or "key value", leading whitespace,
// backslash escapes and continuation lines. Later keys win, as in Java.
func parseProperties(data []byte) (props map[string]string, lines map[string]int, crlf bool) {
	props = map[string]string{}
	lines = map[string]int{}
	s := &lineScanner{data: data}
	for s.next() {
		line := strings.TrimLeft(s.line, " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		num := s.num
		// Continuation: an odd number of trailing backslashes joins the
		// next natural line, minus its leading whitespace.
		for endsWithOddBackslashes(line) {
			line = line[:len(line)-1]
			if !s.next() {
				break
			}
			line += strings.TrimLeft(s.line, " \t\f")
		}
		key, value := splitProperty(line)
		props[key] = value
		lines[key] = num
	}
	return props, lines, s.crlf
}

func endsWithOddBackslashes(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitProperty splits a logical line at the first unescaped '=', ':' or
// whitespace and unescapes both halves.
func splitProperty(line string) (key, value string) {
	i := 0
	for i < len(line) {
		c := line[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	if i > len(line) {
		i = len(line)
	}
	key = line[:i]
	rest := strings.TrimLeft(line[i:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	return unescapeProperty(key), unescapeProperty(rest)
}

func unescapeProperty(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+4 < len(s) {
				if r, err := strconv.ParseUint(s[i+1:i+5], 16, 16); err == nil {
					b.WriteRune(rune(r))
					i += 4
					continue
				}
			}
			b.WriteByte('u')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// decodeJSONObject decodes data as one JSON object (numbers kept as
// json.Number) and fails on anything after it.
func decodeJSONObject(path string, data []byte) (map[string]any, *FormatError) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		off := dec.InputOffset()
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			off = se.Offset
		case errors.As(err, &te):
			off = te.Offset
		case errors.Is(err, io.ErrUnexpectedEOF):
			off = int64(len(data))
		}
		return nil, errAt(path, min(max(off, 0), int64(len(data))), 0, ErrSyntax, "want one JSON object: %v", err)
	}
	if obj == nil {
		return nil, errAt(path, 0, 0, ErrSyntax, "got JSON null, want a JSON object")
	}
	// Only whitespace may follow the object.
	rest := data[dec.InputOffset():]
	if t := bytes.TrimSpace(rest); len(t) > 0 {
		off := dec.InputOffset() + int64(bytes.Index(rest, t[:1]))
		return obj, errAt(path, off, 0, ErrTrailing, "%d bytes after the JSON object, want only whitespace", len(data)-int(off))
	}
	return obj, nil
}

// jsonInt returns obj[key] as an int64, or -1 when absent or not an integer.
func jsonInt(obj map[string]any, key string) (int64, bool) {
	n, ok := obj[key].(json.Number)
	if !ok {
		return -1, false
	}
	v, err := n.Int64()
	if err != nil {
		return -1, false
	}
	return v, true
}

// CleanShutdown is a log dir's .kafka_cleanshutdown marker: empty before
// Kafka 3.7, JSON {"version":0,"brokerEpoch":N} since.
type CleanShutdown struct {
	Path     string
	Leftover bool
	// Empty is true for the pre-3.7 empty marker.
	Empty bool
	// Version and BrokerEpoch from the JSON, -1 when absent.
	Version     int64
	BrokerEpoch int64
	Fields      map[string]any
}

// ParseCleanShutdown parses a .kafka_cleanshutdown marker. An empty file is
// the valid pre-3.7 marker, not an error.
func ParseCleanShutdown(path string, data []byte) (*CleanShutdown, error) {
	c, err := parseCleanShutdown(path, data)
	return c, tagKind(err, KindCleanShutdown)
}

func parseCleanShutdown(path string, data []byte) (*CleanShutdown, error) {
	c := &CleanShutdown{Path: path, Leftover: isLeftover(path), Version: -1, BrokerEpoch: -1}
	if len(bytes.TrimSpace(data)) == 0 {
		c.Empty = true
		return c, nil
	}
	obj, ferr := decodeJSONObject(path, data)
	c.Fields = obj
	if obj != nil {
		c.Version, _ = jsonInt(obj, "version")
		c.BrokerEpoch, _ = jsonInt(obj, "brokerEpoch")
	}
	if ferr != nil {
		return c, ferr
	}
	if c.Version != 0 {
		if _, read := jsonInt(c.Fields, "version"); !read {
			return c, errAt(path, 0, 0, ErrSyntax, "no integer \"version\" field, want {\"version\":0,\"brokerEpoch\":N}")
		}
		return c, errAt(path, 0, 0, ErrVersion, "version %d, want 0", c.Version)
	}
	return c, nil
}

// QuorumState is a KRaft quorum-state file (QuorumStateData as JSON plus
// "data_version"). Every field is kept in Fields; the usual ones are pulled
// out, -1 when absent.
type QuorumState struct {
	Path        string
	Leftover    bool
	Fields      map[string]any
	LeaderID    int64
	LeaderEpoch int64
	VotedID     int64
	DataVersion int64
}

// ParseQuorumState parses a quorum-state file. A 0-byte file (a
// quorum-state.tmp left by a crash) gives ErrEmpty.
func ParseQuorumState(path string, data []byte) (*QuorumState, error) {
	q, err := parseQuorumState(path, data)
	return q, tagKind(err, KindQuorumState)
}

func parseQuorumState(path string, data []byte) (*QuorumState, error) {
	q := &QuorumState{Path: path, Leftover: isLeftover(path), LeaderID: -1, LeaderEpoch: -1, VotedID: -1, DataVersion: -1}
	if len(data) == 0 {
		return q, errAt(path, 0, 0, ErrEmpty, "0 bytes, want a JSON object with leaderId, leaderEpoch, votedId and data_version")
	}
	obj, ferr := decodeJSONObject(path, data)
	q.Fields = obj
	if obj != nil {
		q.LeaderID, _ = jsonInt(obj, "leaderId")
		q.LeaderEpoch, _ = jsonInt(obj, "leaderEpoch")
		q.VotedID, _ = jsonInt(obj, "votedId")
		q.DataVersion, _ = jsonInt(obj, "data_version")
	}
	if ferr != nil {
		return q, ferr
	}
	return q, nil
}
