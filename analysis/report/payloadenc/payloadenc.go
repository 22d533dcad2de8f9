// Package payloadenc writes the bytes of record keys, values and header
// values for the printers of records (dump and records), in text lines and
// in JSON lines, in the encoding a user chooses. Both printers share it so
// that one record's bytes read the same in each.
package payloadenc

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/ksleuth/ksleuth/analysis/payload"
)

// Encoding is how payload bytes are written.
type Encoding string

const (
	// Auto writes valid, printable UTF-8 as it is and anything else as
	// hex; the empty Encoding is Auto too.
	Auto Encoding = "auto"
	// Text writes valid UTF-8 as it is and quotes anything else.
	Text Encoding = "text"
	// Hex writes every byte as two hex digits.
	Hex Encoding = "hex"
	// Base64 writes standard base64 with padding.
	Base64 Encoding = "base64"
)

// Encode renders bytes for a text line. Auto marks hex with a 0x prefix so
// that it does not pass for text.
func (e Encoding) Encode(b []byte) string {
	switch e {
	case Hex:
		return hex.EncodeToString(b)
	case Base64:
		return base64.StdEncoding.EncodeToString(b)
	case Text:
		if utf8.Valid(b) {
			return string(b)
		}
		return strconv.Quote(string(b))
	}
	if utf8.Valid(b) && printable(b) {
		return string(b)
	}
	return "0x" + hex.EncodeToString(b)
}

// EncodeJSON renders bytes for a JSON line with the encoding it chose, so
// that a reader can get the bytes back: "utf8" for text as it is, "hex" or
// "base64" for encoded bytes (without the text form's 0x prefix), and null
// for both when the bytes are null. Text (and Auto) fall back to hex for
// bytes that are not UTF-8 (Auto also for control characters), where a text
// line quotes them.
func (e Encoding) EncodeJSON(b []byte) (value, encoding any) {
	if b == nil {
		return nil, nil
	}
	switch e {
	case Hex:
		return hex.EncodeToString(b), "hex"
	case Base64:
		return base64.StdEncoding.EncodeToString(b), "base64"
	case Text:
		if utf8.Valid(b) {
			return string(b), "utf8"
		}
		return hex.EncodeToString(b), "hex"
	}
	if utf8.Valid(b) && printable(b) {
		return string(b), "utf8"
	}
	return hex.EncodeToString(b), "hex"
}

// printable reports whether text holds no control characters but tabs.
func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// NonNegative is a time or offset for JSON: Kafka's -1 ("none") is a null,
// as in the tables.
func NonNegative(v int64) any {
	if v < 0 {
		return nil
	}
	return v
}

// Framing describes a value in the Confluent wire format: its schema id
// and format, and why it did not decode when it did not.
func Framing(dec payload.Decoded) string {
	desc := dec.Describe()
	if dec.Err != nil {
		desc += ", not decoded: " + dec.Err.Error()
	}
	return desc
}

// WriteLine writes v as one JSON line.
func WriteLine(w *bufio.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the printers marshal plain maps and structs of numbers, strings and slices
	}
	w.Write(b)
	w.WriteByte('\n')
}
