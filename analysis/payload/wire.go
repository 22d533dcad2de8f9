// Package payload reads record values the way the people who produced them
// read them: the Confluent wire format (a zero magic byte, a 4-byte
// big-endian schema id, then the body), with the schemas taken from the
// schema registry's own topic, _schemas, when the same inputs hold it.
// Avro bodies are decoded to the Avro JSON encoding, JSON Schema bodies are
// checked to be JSON and compacted, Protobuf bodies are recognised and
// their message indexes read. Nothing here fails on bad bytes: a value
// that does not decode says why and keeps its raw bytes.
package payload

import "errors"

// WireHeader is the length of the Confluent wire format's header: the
// magic byte 0 and the schema id.
const WireHeader = 5

// Wire is a value split into the Confluent wire format's parts.
type Wire struct {
	SchemaID int32
	// Body is the bytes after the header (a slice of the value).
	Body []byte
}

// ParseWire splits v when it starts as the Confluent wire format does:
// magic byte 0 and a 4-byte schema id. The format has no other marker, so
// a plain value that happens to start with a zero byte parses too; only
// the schema, when the inputs hold it, says whether the body fits.
func ParseWire(v []byte) (Wire, bool) {
	if len(v) < WireHeader || v[0] != 0 {
		return Wire{}, false
	}
	id := int32(uint32(v[1])<<24 | uint32(v[2])<<16 | uint32(v[3])<<8 | uint32(v[4]))
	return Wire{SchemaID: id, Body: v[WireHeader:]}, true
}

// maxMessageIndexes bounds the message-index path of a Protobuf body: the
// nesting depth of message types in one .proto file, which no real schema
// takes near.
const maxMessageIndexes = 64

var errIndexes = errors.New("bad protobuf message indexes")

// MessageIndexes reads the message-index path that starts a Protobuf body
// in the Confluent wire format: a zig-zag varint count, then that many
// zig-zag varint indexes into the schema's nested message types; a count
// of 0 stands for [0], the first message. It returns the path and the
// number of bytes it took.
func MessageIndexes(body []byte) ([]int32, int, error) {
	n, used, err := zigzag(body)
	if err != nil {
		return nil, 0, err
	}
	if n == 0 {
		return []int32{0}, used, nil
	}
	if n < 0 || n > maxMessageIndexes {
		return nil, 0, errIndexes
	}
	out := make([]int32, 0, n)
	for range n {
		v, k, err := zigzag(body[used:])
		if err != nil {
			return nil, 0, err
		}
		if v < 0 || v > 1<<31-1 {
			return nil, 0, errIndexes
		}
		out = append(out, int32(v))
		used += k
	}
	return out, used, nil
}

var (
	errVarintShort = errors.New("varint runs past the end of the body")
	errVarintLong  = errors.New("varint longer than 10 bytes")
)

// zigzag reads one zig-zag encoded varint (Avro's int and long, and the
// Protobuf message indexes of the wire format).
func zigzag(b []byte) (int64, int, error) {
	var u uint64
	for i := 0; i < 10; i++ {
		if i >= len(b) {
			return 0, 0, errVarintShort
		}
		c := b[i]
		if i == 9 && c > 1 {
			return 0, 0, errVarintLong
		}
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), i + 1, nil
		}
	}
	return 0, 0, errVarintLong
}
