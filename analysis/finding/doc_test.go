package finding

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/findings.md from the vocabulary")

const docHead = `# Finding kinds

Every command reports what it finds about its inputs in one vocabulary:
the kinds below, each with the severity it has unless the table says it
is graded by context. ` + "`verify`" + ` prints them, ` + "`scan`" + ` writes them to
anomalies.parquet, the report page lists them, and the same input gives
the same kinds, severities, files and byte positions everywhere.

- **error**: damage, lost data, or a contradiction between files;
- **warning**: a state a healthy broker does not leave behind, with
  innocent explanations (a copy taken while the broker ran);
- **note**: normal, worth knowing.

Errors and warnings make ` + "`verify`" + ` exit 3, and every other command
with ` + "`--fail-on-findings`" + `. A summary's count of findings is of
errors and warnings; notes are counted apart ("3 findings, 2 notes").
Counts per file and per partition (the ` + "`findings`" + ` columns) count every
row of anomalies.parquet, notes included.

` + "`records`" + ` and ` + "`dump`" + ` read the same segments with the same reader and
report the same kinds, severities and byte positions as ` + "`verify`" + `, for
the bytes they read (` + "`records`" + ` reads only the segments a selection can
match). A torn batch (` + "`truncated-batch`" + `) is graded by where its file
stands: ` + "`verify`" + `, ` + "`scan`" + ` and ` + "`records`" + ` take the segment of the highest
base offset among those of its partition dir in their inputs as the
active one. A segment file given on its own is judged by the names of
the live segments beside it in its directory (by every command; none
of them is read): with a later one there it is a rolled segment, its
tear an error, and the offsets lost end just below the later segment's
base offset. When its directory cannot be listed, the tear is a
warning that says whether the file is the active segment is unknown.

This table is generated from the code (` + "`go test ./analysis/finding -update`" + `).

| kind | default severity | found by | meaning |
|---|---|---|---|
`

// TestFindingsDoc keeps docs/findings.md equal to the vocabulary.
func TestFindingsDoc(t *testing.T) {
	var b strings.Builder
	b.WriteString(docHead)
	seen := map[Kind]bool{}
	for _, k := range Kinds {
		if seen[k.Kind] {
			t.Errorf("kind %s listed twice", k.Kind)
		}
		seen[k.Kind] = true
		b.WriteString("| `" + string(k.Kind) + "` | " + string(k.Severity) + " | " + k.Origin + " | " + k.Meaning + " |\n")
	}
	path := filepath.Join("..", "..", "docs", "findings.md")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != b.String() {
		t.Errorf("%s is not the vocabulary (go test ./analysis/finding -update): %v", path, err)
	}
}
