package records

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/records"
	"github.com/ksleuth/ksleuth/analysis/report/payloadenc"
	"github.com/ksleuth/ksleuth/segment"
)

func TestParseFormatErrors(t *testing.T) {
	for _, s := range []string{`%x`, `abc%`, `abc\`, `\q`} {
		if _, err := ParseFormat(s); err == nil {
			t.Errorf("ParseFormat(%q) accepted", s)
		}
	}
}

func TestFormatText(t *testing.T) {
	r := &records.Record{Source: "in", File: "t-0/00000000000000000000.log", Position: 61, Topic: "t", Partition: 0,
		Offset: 7, Timestamp: 1700000000123, ProducerID: 4, ProducerEpoch: 1, Sequence: 9,
		Key: nil, Value: []byte{0xff}, Headers: []segment.Header{{Key: []byte("h"), Value: []byte("v")}, {Key: []byte("n")}}}
	f, err := ParseFormat(`%t/%p@%o %T %D k=%k v=%v h=%h %i/%e/%q %f:%P %S 100%%\t\\\n`)
	if err != nil {
		t.Fatal(err)
	}
	got := string(f.appendText(nil, payloadenc.Auto, r))
	want := "t/0@7 1700000000123 2023-11-14T22:13:20.123Z k=<null> v=0xff h=h=v,n=<null> 4/1/9 t-0/00000000000000000000.log:61 in 100%\t\\\n"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	r.Timestamp, r.ValueNote = -1, "schema id 3"
	f, _ = ParseFormat(`%D %v`)
	if got := string(f.appendText(nil, payloadenc.Hex, r)); got != "- [schema id 3] ff" {
		t.Errorf("no timestamp, undecoded value: %q", got)
	}
}

func TestWriterJSON(t *testing.T) {
	var out, errw bytes.Buffer
	w := New(Options{JSON: true}, &out, &errw, []string{"in"})
	r := &records.Record{Topic: "t", Offset: 3, Timestamp: -1, Key: []byte("k"), Value: nil}
	if err := w.Record(r); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	for _, want := range []string{`"type":"record"`, `"timestamp":null`, `"key":"k"`, `"key_encoding":"utf8"`, `"value":null`, `"headers":[]`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("%s lacks %s", out.String(), want)
		}
	}
	if errw.Len() != 0 {
		t.Errorf("stderr: %q", errw.String())
	}
}
