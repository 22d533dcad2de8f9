package topics

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Field names a field of an internal topic's record that identifies
// something of the user (a group, a topic, a client, a host), as opposed
// to the structure around it (ids, epochs, offsets, timestamps).
type Field uint8

const (
	FieldTopic           Field = iota + 1 // a topic name
	FieldGroup                            // a consumer group id
	FieldMember                           // a group member id (a group's leader too)
	FieldGroupInstance                    // a static member's group instance id
	FieldClientID                         // a client id
	FieldClientHost                       // the host a group member connected from
	FieldProtocolType                     // a group's protocol type ("consumer")
	FieldProtocol                         // a group's protocol (assignor) name ("range")
	FieldCommitMetadata                   // the metadata string of an offset commit
	FieldTransactionalID                  // a producer's transactional id
	FieldHost                             // a broker's or controller's listener host
	FieldRack                             // a broker's rack id
)

// Renamer says what the identifying fields of internal topics' records
// become (Rewrite).
type Renamer interface {
	// Rename returns what a field's value becomes, of any length.
	Rename(f Field, s string) string
	// Fill replaces bytes whose format this package cannot read field by
	// field (a group member's protocol user data, the subscription of a
	// protocol other than "consumer") in place, with bytes of the same
	// length.
	Fill(p []byte)
}

// ErrNotRewritten: Rewrite could not rewrite a record whole (it does not
// decode, or its version is unknown); the caller keeps it as it is or
// fills it.
var ErrNotRewritten = errors.New("not rewritten")

// Rewrite returns the key and value of a record of internal topic t with
// their identifying fields replaced through r, the structure kept: the
// same record types, versions, ids, epochs and offsets, unknown tagged
// fields as they were; only lengths change with the names. The decoders
// of this package read the record, so encoder and decoder cannot disagree
// on the layout. A tombstone stays a tombstone. Records of a type that is
// counted, not decoded (KIP-848 and share groups' values) keep their
// version and get the rest of their value filled. An error wraps
// ErrNotRewritten and says why; key and value are returned as far as they
// were rewritten (the key, when only the value failed).
func Rewrite(t Topic, key, value []byte, control bool, r Renamer) (newKey, newValue []byte, err error) {
	switch {
	case control && t == ClusterMetadata && len(key) >= 4:
		// KRaft's control records: the voters' endpoints name hosts.
		ed := &editor{r: r}
		if _, err := decodeControl(int16(binary.BigEndian.Uint16(key[2:])), value, ed); err != nil {
			return key, value, fmt.Errorf("%w: %w", ErrNotRewritten, err)
		}
		return key, ed.apply(value), nil
	case control:
		return key, value, nil // transaction markers
	}
	switch t {
	case TransactionState:
		return rewriteTxn(key, value, r)
	case ConsumerOffsets:
		return rewriteGroup(key, value, r)
	case ClusterMetadata:
		ed := &editor{r: r}
		if _, err := decodeMetadata(value, ed); err != nil {
			return key, value, fmt.Errorf("%w: %w", ErrNotRewritten, err)
		}
		return key, ed.apply(value), nil
	}
	return key, value, nil
}

func rewriteTxn(key, value []byte, r Renamer) ([]byte, []byte, error) {
	ed := &editor{r: r}
	if _, err := decodeTxnKey(key, ed); err != nil {
		return key, value, fmt.Errorf("%w: %w", ErrNotRewritten, err)
	}
	key = ed.apply(key)
	ed = &editor{r: r}
	if _, err := decodeTxnValue(value, ed); err != nil {
		return key, value, fmt.Errorf("%w: %w", ErrNotRewritten, err)
	}
	return key, ed.apply(value), nil
}

func rewriteGroup(key, value []byte, r Renamer) ([]byte, []byte, error) {
	ed := &editor{r: r}
	k, err := decodeGroupKey(key, ed)
	if err != nil {
		return key, value, fmt.Errorf("%w: %w", ErrNotRewritten, err)
	}
	key = ed.apply(key)
	if value == nil {
		return key, nil, nil
	}
	ed = &editor{r: r}
	switch {
	case k.Type <= GroupTypeOffsetCommit:
		_, err = decodeOffsetCommitValue(value, ed)
	case k.Type == GroupTypeGroupMetadata:
		_, err = decodeGroupMetadataValue(value, ed)
	default:
		v := append([]byte(nil), value...)
		if len(v) > 2 {
			r.Fill(v[2:])
		}
		return key, v, nil
	}
	if err != nil {
		return key, value, fmt.Errorf("%w: %w", ErrNotRewritten, err)
	}
	return key, ed.apply(value), nil
}

// editor collects the replacements of one key or value while a decoder
// reads it (cursor.ed): each a span of the input and the bytes it
// becomes, in the order they were read.
type editor struct {
	r     Renamer
	spans []span
}

type span struct {
	start, end int
	repl       []byte
}

// apply returns b with the editor's replacements; b itself when it has
// none.
func (e *editor) apply(b []byte) []byte {
	if e == nil || len(e.spans) == 0 {
		return b
	}
	out := make([]byte, 0, len(b)+64)
	at := 0
	for _, s := range e.spans {
		out = append(out, b[at:s.start]...)
		out = append(out, s.repl...)
		at = s.end
	}
	return append(out, b[at:]...)
}

// appendLength appends a string (wide false) or bytes length as the
// schemas encode it: uvarint n+1 in flexible versions, int16 or int32.
func appendLength(b []byte, flex, wide bool, n int) []byte {
	switch {
	case flex:
		return binary.AppendUvarint(b, uint64(n+1))
	case wide:
		return binary.BigEndian.AppendUint32(b, uint32(n))
	}
	return binary.BigEndian.AppendUint16(b, uint16(n))
}

// named reads a non-nullable string field that identifies something:
// under an editor, its replacement is recorded.
func (c *cursor) named(f Field, flex bool, what string) string {
	start := c.off
	s := c.string(flex, what)
	c.rename(f, flex, start, s)
	return s
}

// namedNullable is named for a nullable string; null stays null.
func (c *cursor) namedNullable(f Field, flex bool, what string) *string {
	start := c.off
	s := c.nullableString(flex, what)
	if s != nil {
		c.rename(f, flex, start, *s)
	}
	return s
}

func (c *cursor) rename(f Field, flex bool, start int, s string) {
	if c.ed == nil || c.err != nil {
		return
	}
	n := c.ed.r.Rename(f, s)
	if n == s {
		return
	}
	if !flex && len(n) > 32767 {
		c.fail(fmt.Sprintf("the replacement of %q is too long", s))
		return
	}
	c.ed.spans = append(c.ed.spans, span{start: start, end: c.off, repl: append(appendLength(nil, flex, false, len(n)), n...)})
}

// replaceBytes records, under an editor, that the bytes field read from
// start (its length included) becomes p.
func (c *cursor) replaceBytes(flex bool, start int, p []byte) {
	if c.ed == nil || c.err != nil {
		return
	}
	c.ed.spans = append(c.ed.spans, span{start: start, end: c.off, repl: append(appendLength(nil, flex, true, len(p)), p...)})
}

// retag records, when the data of the tagged field read from start (by
// cursor f, with an editor of its own) changed, the replacement of the
// whole field: tag, new size, new data.
func (c *cursor) retag(f *cursor, tag uint32, start int) {
	if f.ed == nil || len(f.ed.spans) == 0 || c.err != nil {
		return
	}
	data := f.ed.apply(f.b)
	repl := binary.AppendUvarint(binary.AppendUvarint(nil, uint64(tag)), uint64(len(data)))
	c.ed.spans = append(c.ed.spans, span{start: start, end: c.off, repl: append(repl, data...)})
}
