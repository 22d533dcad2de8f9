package records

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ksleuth/ksleuth/analysis/records"
	"github.com/ksleuth/ksleuth/analysis/report/payloadenc"
)

// DefaultFormat is the text line of a record when no format is given.
const DefaultFormat = `%t/%p@%o %D key=%k value=%v headers=%h\n`

// Format is a parsed text format: literals and the tokens between them.
type Format []formatPart

// formatPart is a literal or a token of a format string.
type formatPart struct {
	lit   string
	token byte // 0 for a literal
}

// ParseFormat splits a format string into literals and tokens: %t topic,
// %p partition, %o offset, %T and %D timestamp, %k key, %v value, %h
// headers, %i, %e, %q producer id, epoch and sequence, %f file, %P batch
// position, %S source, %C the copy (when the inputs hold several copies
// of the partition, else nothing), %% a percent sign; \n, \t and \\
// escapes.
func ParseFormat(s string) (Format, error) {
	var parts Format
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, formatPart{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				lit.WriteByte('\n')
			case 't':
				lit.WriteByte('\t')
			case '\\':
				lit.WriteByte('\\')
			default:
				return nil, fmt.Errorf("unknown escape \\%c (\\n, \\t and \\\\ are known)", s[i])
			}
		case c == '%' && i+1 < len(s):
			i++
			t := s[i]
			if t == '%' {
				lit.WriteByte('%')
				continue
			}
			if !strings.ContainsRune("tpoTDkvhieqfPSC", rune(t)) {
				return nil, fmt.Errorf("unknown token %%%c", t)
			}
			flush()
			parts = append(parts, formatPart{token: t})
		case c == '%' || c == '\\':
			return nil, fmt.Errorf("%q ends with a lone %c", s, c)
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return parts, nil
}

// CRCMark starts the text line of a record whose batch's checksum does
// not hold: its bytes are not verified.
const CRCMark = "[CRC mismatch] "

// appendMarks starts a record's text line with what the format may not
// say and a reader must not miss: the copy it was read from when the
// inputs hold several copies of its partition ("[broker 2] "; unless the
// format names the copy or the source itself, %C or %S), and CRCMark.
func (f Format) appendMarks(b []byte, r *records.Record) []byte {
	if r.Copy != "" && !f.names('C') && !f.names('S') {
		b = append(b, '[')
		b = append(b, r.Copy...)
		b = append(b, "] "...)
	}
	if !r.CRCValid {
		b = append(b, CRCMark...)
	}
	return b
}

// names reports whether the format has the token.
func (f Format) names(token byte) bool {
	for _, p := range f {
		if p.token == token {
			return true
		}
	}
	return false
}

// appendText renders a record by the format, its payloads in encoding enc.
func (f Format) appendText(b []byte, enc payloadenc.Encoding, r *records.Record) []byte {
	payload := func(b, p []byte) []byte {
		if p == nil {
			return append(b, "<null>"...)
		}
		return append(b, enc.Encode(p)...)
	}
	for _, p := range f {
		switch p.token {
		case 0:
			b = append(b, p.lit...)
		case 't':
			b = append(b, r.Topic...)
		case 'p':
			b = strconv.AppendInt(b, int64(r.Partition), 10)
		case 'o':
			b = strconv.AppendInt(b, r.Offset, 10)
		case 'T':
			b = strconv.AppendInt(b, r.Timestamp, 10)
		case 'D':
			if r.Timestamp < 0 {
				b = append(b, '-')
			} else {
				b = time.UnixMilli(r.Timestamp).UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
			}
		case 'k':
			b = payload(b, r.Key)
		case 'v':
			switch {
			case r.Decoded != nil:
				b = append(b, r.Decoded...)
			case r.ValueNote != "":
				b = append(b, '[')
				b = append(b, r.ValueNote...)
				b = append(b, "] "...)
				b = payload(b, r.Value)
			default:
				b = payload(b, r.Value)
			}
		case 'h':
			for i, h := range r.Headers {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, h.Key...)
				b = append(b, '=')
				b = payload(b, h.Value)
			}
		case 'i':
			b = strconv.AppendInt(b, r.ProducerID, 10)
		case 'e':
			b = strconv.AppendInt(b, int64(r.ProducerEpoch), 10)
		case 'q':
			b = strconv.AppendInt(b, int64(r.Sequence), 10)
		case 'f':
			b = append(b, r.File...)
		case 'P':
			b = strconv.AppendInt(b, r.Position, 10)
		case 'S':
			b = append(b, r.Source...)
		case 'C':
			b = append(b, r.Copy...)
		}
	}
	return b
}
