package payload

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/hamba/avro/v2"
	"github.com/ksleuth/ksleuth/analysis/payload/payloadtest"
)

// benchOrder is one Order of the payload sample, with a note: 36 bytes.
func benchOrder(b *testing.B) (avro.Schema, []byte) {
	s, err := avro.Parse(payloadtest.OrderSchema)
	if err != nil {
		b.Fatal(err)
	}
	note := "leave at the door"
	body, err := avro.Marshal(s, map[string]any{"id": int64(4712), "customer": "bob", "status": "PAID",
		"total": big.NewRat(-50, 100), "day": int32(19677), "note": &note})
	if err != nil {
		b.Fatal(err)
	}
	return s, body
}

// BenchmarkDecodeAvro: the bounded decoder, body to Avro JSON text.
func BenchmarkDecodeAvro(b *testing.B) {
	s, body := benchOrder(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeAvro(s, body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHambaToJSON: the library's own path to the same text, for
// comparison: Unmarshal into a generic value, then encoding/json.
func BenchmarkHambaToJSON(b *testing.B) {
	s, body := benchOrder(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := avro.Unmarshal(s, body, &v); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}
