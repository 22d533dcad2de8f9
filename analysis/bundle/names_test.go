package bundle

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ksleuth/ksleuth/analysis/source"
	"github.com/ksleuth/ksleuth/analysis/topics"
	"github.com/ksleuth/ksleuth/segment"
	"github.com/ksleuth/ksleuth/segment/segtest"
	"github.com/ksleuth/ksleuth/snapshot"
)

// makeNamesBundle bundles dir redacted, its names replaced.
func makeNamesBundle(t *testing.T, dir string) (string, *Result, []*source.Input) {
	t.Helper()
	inputs, err := source.Classify([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "b.tar.zst")
	res, err := Write(context.Background(), out, inputs, Options{Secret: testSecret, Names: true, Command: "ksleuth bundle " + dir, Now: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	return out, res, inputs
}

// namesDirs are the sample, every dir of the real corpus (ksqlDB's and
// Control Center's topics, consumer groups, transactional ids, KRaft
// metadata among them) and a generated dir with transactional ids.
func namesDirs(t *testing.T) []string {
	attribution := filepath.Join(t.TempDir(), "attribution")
	if err := segtest.WriteAttributionLogDir(attribution); err != nil {
		t.Fatal(err)
	}
	return append([]string{sampleDir, attribution}, realDirs(t)...)
}

// TestNamesSameStory: with names replaced, --check given the names map
// finds the same verdicts, losses, findings, duplicates, replicas,
// commits, groups and transactional ids; without the map, the commits,
// groups and transactional ids differ (they are compared, under tokens).
func TestNamesSameStory(t *testing.T) {
	unmapped := map[string]int{}
	for _, d := range namesDirs(t) {
		t.Run(filepath.Base(d), func(t *testing.T) {
			out, res, inputs := makeNamesBundle(t, d)
			if len(res.Names.Topics)+len(res.Names.Groups)+len(res.Names.Transactional)+len(res.Names.Hosts) == 0 {
				t.Fatal("no name replaced")
			}
			if res.InternalKept != 0 {
				t.Errorf("%d records of the internal topics kept as they were", res.InternalKept)
			}
			b, err := source.Classify([]string{out})
			if err != nil {
				t.Fatal(err)
			}
			man, err := ReadManifest(context.Background(), b[0])
			if err != nil {
				t.Fatal(err)
			}
			if !man.Names {
				t.Error("the manifest does not say names were replaced")
			}
			diffs, _, err := Compare(context.Background(), inputs, b[0], man, CompareOptions{Jobs: 1, TmpDir: t.TempDir(), Names: res.Names})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range diffs {
				t.Error(d)
			}
			// Without the map the bundle names other topics: the check
			// would see every verdict differ.
			diffs, _, err = Compare(context.Background(), inputs, b[0], man, CompareOptions{Jobs: 1, TmpDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if len(diffs) == 0 && len(res.Names.Topics) > 0 {
				t.Error("the bundle tells the same story without its names map")
			}
			for _, d := range diffs {
				unmapped[strings.Fields(d)[1]]++
			}
		})
	}
	for _, kind := range []string{"commit", "group", "transaction"} {
		if unmapped[kind] == 0 {
			t.Errorf("no %s differs without the names map", kind)
		}
	}
	t.Logf("without the names map: %v", unmapped)
}

// originalNames returns the user topics' names (of the partition dirs
// the inputs list: the dirs above them are no topic's), the header keys
// of dir's segments and the names the internal topics' records hold, of
// 8 bytes or more.
func originalNames(t *testing.T, dir string) map[string]bool {
	t.Helper()
	inputs, err := source.Classify([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	files, err := inputs[0].Files(source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range files {
		p := filepath.Join(dir, filepath.FromSlash(e.Path))
		if it := internalFile(p); it != topics.None {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			internalNames(it, data, names)
		}
		if e.Partition == nil || strings.HasPrefix(e.Partition.Topic, "__") {
			continue
		}
		names[e.Partition.Topic] = true
		if e.Name.Kind != snapshot.KindLog {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range headerKeys(data) {
			names[k] = true
		}
	}
	for n := range names {
		if len(n) < 8 {
			delete(names, n)
		}
	}
	return names
}

func headerKeys(data []byte) []string {
	r := segment.NewReaderBytes(data, segment.Options{})
	defer r.Close()
	var out []string
	for r.Next() {
		if r.Batch() == nil {
			continue
		}
		it := r.Records()
		for it.Next() {
			for _, h := range it.Record().Headers {
				out = append(out, string(h.Key))
			}
		}
	}
	return out
}

// namesText is everything a bundle holds: each entry's name and bytes,
// and the keys, values and header keys of each segment and KRaft
// snapshot, decompressed.
func namesText(t *testing.T, path string) []byte {
	t.Helper()
	var all bytes.Buffer
	eachEntry(t, path, func(name string, b []byte) {
		all.WriteString(name)
		all.Write(b)
		if k := snapshot.KindOf(filepath.Base(name)); k == snapshot.KindLog || k == snapshot.KindKRaftSnapshot {
			all.Write(recordText(b))
		}
	})
	return all.Bytes()
}

// TestNamesLeakNoName: no topic name, header key, or name the internal
// topics' records hold (group, member, client, instance and
// transactional ids, hosts, racks, commit metadata) of 8 bytes or more
// occurs in a bundle made with names replaced, records decompressed; and
// each occurs in a bundle made without, so the search finds what it
// looks for.
func TestNamesLeakNoName(t *testing.T) {
	searched := 0
	for _, d := range namesDirs(t) {
		names := originalNames(t, d)
		out, _, _ := makeNamesBundle(t, d)
		text := namesText(t, out)
		plain, _, _ := makeBundle(t, testSecret, d)
		plainText := namesText(t, plain)
		for n := range names {
			searched++
			if bytes.Contains(text, []byte(n)) {
				t.Errorf("%s: the bundle holds the name %q", d, n)
			}
			if !bytes.Contains(plainText, []byte(n)) {
				t.Errorf("%s: the bundle without names replaced does not hold %q", d, n)
			}
		}
	}
	if searched < 10 {
		t.Errorf("only %d names searched", searched)
	}
	t.Logf("%d names searched", searched)
}

// TestHeaderKeyTokens: a header key's replacement has its length, equal
// keys get equal replacements and distinct keys distinct ones, even when
// they are many and short.
func TestHeaderKeyTokens(t *testing.T) {
	n := newNamer(testSecret)
	seen := map[string]string{}
	for i := range 2000 {
		key := []byte(strings.Repeat("k", 1+i%3) + string(rune('a'+i%26)) + strings.Repeat("x", i/78))
		orig := string(key)
		n.headerKey(key)
		if len(key) != len(orig) {
			t.Fatalf("%q became %q", orig, key)
		}
		if prev, ok := seen[string(key)]; ok && prev != orig {
			t.Fatalf("%q and %q both became %q", prev, orig, key)
		}
		seen[string(key)] = orig
		again := []byte(orig)
		n.headerKey(again)
		if string(again) != string(key) {
			t.Fatalf("%q became %q, then %q", orig, key, again)
		}
	}
}

// TestCheckpointRenamed: every entry of an offset checkpoint names the
// topic's token, and a line that is no entry stays as it was.
func TestCheckpointRenamed(t *testing.T) {
	n := newNamer(testSecret)
	in := "0\n3\norders 0 12\norders.eu-west 1 7\n__consumer_offsets 4 9\nnot an entry\n"
	b, moves := n.checkpoint([]byte(in))
	got := string(b)
	want := "0\n3\n" + n.topic("orders") + " 0 12\n" + n.topic("orders.eu-west") + " 1 7\n__consumer_offsets 4 9\nnot an entry\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !strings.HasPrefix(n.topic("orders"), "t-") || len(n.topic("orders")) != 12 {
		t.Errorf("token %q", n.topic("orders"))
	}
	// Every byte after a topic maps to the same byte of the rewritten
	// file: the partition and offset of each entry, and the lines after.
	for _, probe := range []string{" 0 12", " 1 7", "__consumer_offsets", "not an entry"} {
		from, to := strings.Index(in, probe), strings.Index(got, probe)
		if p := segment.MapPosition(moves, int64(from)); p != int64(to) {
			t.Errorf("%q at byte %d maps to %d, is at %d", probe, from, p, to)
		}
	}
}

// appendString appends a string as Kafka's non-flexible schemas do: an
// int16 length, then the bytes.
func appendString(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint16(b, uint16(len(s))), s...)
}

// TestGroupKeyTokens: a __consumer_offsets key decodes after its names
// were replaced, with the tokens in their places and the partition kept;
// a key that does not decode stays as it is.
func TestGroupKeyTokens(t *testing.T) {
	n := newNamer(testSecret)
	rekey := func(k []byte) []byte {
		nk, _, _ := topics.Rewrite(topics.ConsumerOffsets, k, nil, false, n)
		return nk
	}
	commit := appendString(appendString([]byte{0, 1}, "billing-consumers"), "orders.eu")
	commit = append(commit, 0, 0, 0, 7)
	k, err := topics.DecodeGroupKey(rekey(commit))
	if err != nil {
		t.Fatal(err)
	}
	if k.Type != 1 || k.Group != n.groups["billing-consumers"] || !strings.HasPrefix(k.Group, "g-") || *k.Topic != n.topic("orders.eu") ||
		*k.Partition != 7 {
		t.Errorf("offset commit key became %+v", k)
	}
	member := appendString(appendString([]byte{0, 5}, "billing-consumers"), "consumer-1-4f2a")
	if k, err = topics.DecodeGroupKey(rekey(member)); err != nil || k.Group != n.groups["billing-consumers"] ||
		*k.MemberID != n.members["consumer-1-4f2a"] || !strings.HasPrefix(*k.MemberID, "m-") {
		t.Errorf("member key became %+v (%v)", k, err)
	}
	bad := []byte{0, 1, 0, 40, 'x'}
	if got := rekey(bad); !bytes.Equal(got, bad) {
		t.Errorf("a torn key became %q", got)
	}
}

// TestDamagedCheckpointNames: a checkpoint damaged after entries whose
// topics became tokens of other lengths gives the same finding, at the
// same line, in the bundle, and the manifest maps every byte of its
// entries through the renamed topics.
func TestDamagedCheckpointNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "generated")
	if err := os.CopyFS(dir, os.DirFS(sampleDir)); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "replication-offset-checkpoint")
	data, err := os.ReadFile(cp)
	if err != nil {
		t.Fatal(err)
	}
	damaged := strings.Replace(string(data), "upgrade 0 43", "upgrade 0 x43", 1)
	if damaged == string(data) {
		t.Fatal("the sample's checkpoint changed: no entry to damage")
	}
	if err := os.WriteFile(cp, []byte(damaged), 0o644); err != nil {
		t.Fatal(err)
	}
	out, res, inputs := makeNamesBundle(t, dir)
	f := res.Manifest.Lookup(0, "replication-offset-checkpoint")
	if f == nil || len(f.Moves) == 0 {
		t.Fatalf("the checkpoint's manifest entry has no moves: %+v", f)
	}
	token := res.Names.namer().topics["upgrade"]
	at := strings.Index(damaged, "upgrade 0 x43") + len("upgrade")
	b, err := source.Classify([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	want := token + " 0 x43"
	bundled := namesText(t, out)
	i := bytes.Index(bundled, []byte(want))
	if i < 0 {
		t.Fatalf("the bundle has no %q", want)
	}
	start := bytes.LastIndex(bundled[:i], []byte("0\n9\n")) // the checkpoint's first lines
	if got := f.Position(int64(at)); start < 0 || got != int64(i-start+len(token)) {
		t.Errorf("byte %d of the entry maps to %d, is at %d", at, got, i-start+len(token))
	}
	diffs, _, err := Compare(context.Background(), inputs, b[0], res.Manifest, CompareOptions{Jobs: 1, TmpDir: t.TempDir(), Names: res.Names})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Error(d)
	}
	facts, _, err := facts(context.Background(), inputs, CompareOptions{Jobs: 1, TmpDir: t.TempDir()}, func(_ int32, d string) string { return d }, nil, same)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(facts, func(s string) bool { return strings.HasPrefix(s, "finding state-format replication-offset-checkpoint") }) {
		t.Errorf("no finding of the damaged checkpoint in %q", facts)
	}
}
