package pipeline_test

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/ksleuth/ksleuth/analysis"
	"github.com/ksleuth/ksleuth/analysis/pipeline"
)

// TestTopicFilterReadsAllEvidence: a topic filter chooses what a run
// reports, never what evidence it reads. For each input and topic, the
// findings, verdicts and producer sessions of the topic's partitions with
// --topic are those of the run without it, nothing is reported about
// another topic's partition, and the log dir's own findings (its
// checkpoints name every partition dir, selected or not) are the same.
func TestTopicFilterReadsAllEvidence(t *testing.T) {
	cases := []struct {
		in     string
		topics []string
	}{
		{sampleDir, []string{"codecs", "txn", "compacted", "idempotent"}},
		{filepath.Join(corpusDir, "ItumelengMogase__Real-Time-Data-Pipeline-for-Patient-Admissions", "kafka-data"),
			[]string{"_confluent-ksql-default__command_topic", "patient_admissions"}},
		{filepath.Join(corpusDir, "Danielowo2000__BigDataTechnologies-Version-2", "kafka_data"), []string{"locations", "CURRENTLOCATION"}},
		{filepath.Join(corpusDir, "DonaldY__kafka-2.7.1", "kafka-logs"), []string{"myTopic"}},
		{filepath.Join(corpusDir, "NikhilDighe9975__kafka_setup"), []string{"demo_topic"}},
	}
	// An archive is read once, front to back: the entries the filter
	// leaves out are named as they stream by.
	cases = append(cases, struct {
		in     string
		topics []string
	}{tarGz(t, sampleDir), []string{"codecs", "txn"}})
	for _, c := range cases {
		if _, err := os.Stat(c.in); err != nil {
			t.Fatalf("input missing: %v", err)
		}
		for _, cmd := range []pipeline.Command{pipeline.Verify, pipeline.Producers} {
			all, _ := runPlan(t, pipeline.Plan{Command: cmd}, c.in)
			for _, topic := range c.topics {
				re := regexp.MustCompile("^" + regexp.QuoteMeta(topic) + "$")
				got, _ := runPlan(t, pipeline.Plan{Command: cmd, Topic: re}, c.in)
				name := fmt.Sprintf("%s --topic %s (command %d)", filepath.Base(filepath.Dir(c.in))+"/"+filepath.Base(c.in), topic, cmd)
				keep := func(t string) bool { return t == "" || re.MatchString(t) }
				for _, a := range got.Scan.Anomalies {
					if a.Topic != nil && !keep(*a.Topic) {
						t.Errorf("%s: a finding about topic %s: %s", name, *a.Topic, a.Message)
					}
				}
				sameLines(t, name+": findings", findingLines(all.Scan.Anomalies, keep), findingLines(got.Scan.Anomalies, keep))
				sameLines(t, name+": verdicts", verdictLines(all, keep), verdictLines(got, keep))
				sameLines(t, name+": sessions", sessionLines(all.Sessions, keep), sessionLines(got.Sessions, keep))
			}
		}
	}
}

// tarGz writes dir into a .tar.gz under a temporary dir, its files under
// the dir's base name.
func tarGz(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(dir)+".tar.gz")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	err = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(filepath.Join(filepath.Base(dir), rel))
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err == nil {
		err = errors.Join(tw.Close(), zw.Close(), f.Close())
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func findingLines(rows []analysis.AnomalyRow, keep func(string) bool) []string {
	var out []string
	for _, a := range rows {
		topic := ""
		if a.Topic != nil {
			topic = *a.Topic
		}
		if keep(topic) {
			out = append(out, fmt.Sprintf("%s %s %s %s %v: %s", a.Kind, a.Severity, topic, a.File, deref(a.Position), a.Message))
		}
	}
	return out
}

func verdictLines(r *pipeline.Result, keep func(string) bool) []string {
	var out []string
	for _, v := range r.Check.Partitions {
		if keep(v.Topic) {
			out = append(out, fmt.Sprintf("%s %s", v.Dir, v.Text))
		}
	}
	return out
}

func sessionLines(rows []analysis.ProducerRow, keep func(string) bool) []string {
	var out []string
	for _, s := range rows {
		if keep(s.Topic) {
			b, _ := json.Marshal(s)
			out = append(out, string(b))
		}
	}
	return out
}

func deref(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

func sameLines(t *testing.T, what string, want, got []string) {
	t.Helper()
	if slices.Equal(want, got) {
		return
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s: missing with the filter: %s", what, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("%s: only with the filter: %s", what, g)
		}
	}
	if len(want) == len(got) {
		t.Errorf("%s: in another order", what)
	}
}
