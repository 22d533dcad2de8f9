package segment

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// manifestCounts reads the per-partition "N batches/messages, M records"
// lines of the real corpus MANIFEST.md, keyed by source/partition-path.
func manifestCounts(t *testing.T, root string) map[string][2]int64 {
	f, err := os.Open(filepath.Join(root, "MANIFEST.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	source := regexp.MustCompile("^## ([^ ]+)/([^ ]+)$")
	part := regexp.MustCompile("^ *- `([^`]+)`: segments \\[[^]]*\\]; ([0-9]+) batches/messages, ([0-9]+) records")
	out := map[string][2]int64{}
	cur := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := source.FindStringSubmatch(line); m != nil {
			cur = m[1] + "__" + m[2]
			continue
		}
		if m := part.FindStringSubmatch(line); m != nil && cur != "" {
			b, _ := strconv.ParseInt(m[2], 10, 64)
			r, _ := strconv.ParseInt(m[3], 10, 64)
			out[filepath.Join(cur, m[1])] = [2]int64{b, r}
		}
	}
	return out
}

// TestRealCorpus reads every segment a real broker wrote (Kafka 0.10 to
// 4.2): no findings anywhere (the manifest says every CRC checks out and no
// tail is torn), and per partition the batch and record counts the
// manifest gives.
func TestRealCorpus(t *testing.T) {
	root := corpusDir(t, "real")
	want := manifestCounts(t, root)
	if len(want) < 100 {
		t.Fatalf("parsed only %d partition lines from MANIFEST.md", len(want))
	}
	got := map[string][2]int64{}
	files := 0
	d := NewDecoder(Options{})
	defer d.Close()
	err := filepath.WalkDir(root, func(p string, de os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := de.Name()
		isLog := strings.HasSuffix(name, ".log")
		isOdd := strings.Contains(name, ".log.") // .log.deleted / .log.swap / .log.cleaned
		isKraft := strings.HasSuffix(strings.TrimSuffix(name, ".deleted"), ".checkpoint") && !strings.HasSuffix(name, "-checkpoint")
		if de.IsDir() || !(isLog || isOdd || isKraft) {
			return nil
		}
		files++
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		r := NewReader(f, Options{Path: p})
		defer r.Close()
		var batches, records int64
		for r.Next() {
			if fd := r.Finding(); fd != nil {
				t.Errorf("finding: %v", fd)
				continue
			}
			b := r.Batch()
			batches++
			it := r.Records()
			n := int32(0)
			for it.Next() {
				n++
				records++
			}
			if err := it.Err(); err != nil {
				t.Errorf("records: %v", err)
			}
			if b.Magic == 2 && n != b.NumRecords {
				t.Errorf("%s@%d: %d records, header says %d", p, b.Position, n, b.NumRecords)
			}
		}
		if err := r.Err(); err != nil {
			t.Error(err)
		}
		if !isKraft { // the manifest counts .log.deleted/.swap with the partition
			c := got[rel]
			got[rel] = [2]int64{c[0] + batches, c[1] + records}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 1000 {
		t.Fatalf("read only %d segment files", files)
	}
	checked := 0
	for part, w := range want {
		if g := got[part]; g != w {
			t.Errorf("%s: got %d batches, %d records; MANIFEST.md says %d, %d", part, g[0], g[1], w[0], w[1])
		}
		checked++
	}
	t.Logf("%d segment files read, %d partitions' counts checked against MANIFEST.md", files, checked)
}
