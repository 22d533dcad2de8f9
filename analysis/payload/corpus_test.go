package payload

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/segment"
)

// corpusDir is the real-broker corpus kept beside the checkout.
var corpusDir = filepath.Join("..", "..", "..", "shared", "corpus", "real")

func needCorpus(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(corpusDir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the real-broker corpus is missing: %v", err)
		}
		t.Skip("SKIPPING: the real-broker corpus is not beside the checkout")
	}
}

func loadDir(t *testing.T, dir string) *Registry {
	t.Helper()
	ins, err := source.Classify([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Load(context.Background(), ins)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRealCorpusRegistries reads the _schemas topics of the four corpus
// log dirs that have one: each a registry's own records, so none may give
// a finding. The counts are those of the keys a grep of `ksleuth dump
// --payload` over the segments finds: three registries wrote only NOOP
// records, one wrote 8 SCHEMA records, ids 1 to 8.
func TestRealCorpusRegistries(t *testing.T) {
	needCorpus(t)
	for _, c := range []struct {
		dir     string
		records int
		ids     string
	}{
		{"ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions/kafka-data", 42, "[]"},
		{"rjmfernandes__flink-on-prem/data", 10, "[1 2 3 4 5 6 7 8]"},
		{"Danielowo2000__BigDataTechnologies-Version-2/kafka_data", 4, "[]"},
		{"mscaldas2012__kafka-connect-spooldir/kafka-data", 63, "[]"},
	} {
		r := loadDir(t, filepath.Join(corpusDir, c.dir))
		for _, f := range r.Findings() {
			t.Errorf("%s: %+v", c.dir, f)
		}
		if r.Records() != c.records || fmt.Sprint(r.IDs()) != c.ids {
			t.Errorf("%s: %d _schemas records, schema ids %v; want %d, %s", c.dir, r.Records(), r.IDs(), c.records, c.ids)
		}
	}
}

// TestRealCorpusAgainstFastavro decodes every value in the wire format of
// the corpus topics a real registry's schemas describe (loyalty_levels and
// promotions, written by Confluent's Avro serializer) and holds each to
// what fastavro reads from the same body with the same schema text.
func TestRealCorpusAgainstFastavro(t *testing.T) {
	needCorpus(t)
	python := fastavroPython(t)
	dir := filepath.Join(corpusDir, "rjmfernandes__flink-on-prem", "data")
	r := loadDir(t, dir)
	tmp := t.TempDir()
	in, err := os.Create(filepath.Join(tmp, "in.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	perTopic := map[string]int{}
	for _, topic := range []string{"loyalty_levels-0", "promotions-0"} {
		segs, _ := filepath.Glob(filepath.Join(dir, topic, "*.log"))
		for _, seg := range segs {
			f, err := os.Open(seg)
			if err != nil {
				t.Fatal(err)
			}
			sr := segment.NewReader(f, segment.Options{Path: seg})
			for sr.Next() {
				if sr.Batch() == nil {
					t.Fatalf("%s: %v", seg, sr.Finding())
				}
				it := sr.Records()
				for it.Next() {
					rec := it.Record()
					d, ok := r.DecodeValue(topic[:len(topic)-2], rec.Value)
					if !ok || rec.IsControl {
						continue
					}
					if d.Err != nil || d.Schema == nil {
						t.Fatalf("%s offset %d: %+v", seg, rec.Offset, d)
					}
					line, _ := json.Marshal(map[string]string{"schema": d.Schema.Text, "hex": hex.EncodeToString(rec.Value[WireHeader:])})
					in.Write(append(line, '\n'))
					got = append(got, d.JSON)
					perTopic[topic]++
				}
			}
			sr.Close()
			f.Close()
		}
	}
	in.Close()
	if perTopic["loyalty_levels-0"] == 0 || perTopic["promotions-0"] == 0 {
		t.Fatalf("values decoded per topic: %v", perTopic)
	}
	out := filepath.Join(tmp, "out.jsonl")
	cmd := exec.Command(python, filepath.Join("testdata", "fastavro_decode.py"), in.Name(), out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fastavro_decode.py: %v\n%s", err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	i := 0
	for ; sc.Scan(); i++ {
		var want struct {
			JSON  any    `json:"json"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &want); err != nil {
			t.Fatal(err)
		}
		if want.Error != "" {
			t.Fatalf("value %d: fastavro cannot read it (%s), ksleuth decoded %s", i, want.Error, got[i])
		}
		var g any
		if err := json.Unmarshal(got[i], &g); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, want.JSON) {
			t.Fatalf("value %d:\n got %s\nwant %s", i, got[i], sc.Bytes())
		}
	}
	if i != len(got) {
		t.Fatalf("fastavro wrote %d values, ksleuth decoded %d", i, len(got))
	}
	t.Logf("%d values equal to fastavro's: %v", i, perTopic)
}
