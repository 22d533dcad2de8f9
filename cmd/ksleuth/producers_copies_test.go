package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestProducersCopyColumn: one input holding two brokers' log dirs lists
// each partition's sessions once per copy. Truth: with the sample copied
// to b1 and b2 of one dir, every session row names its copy in COPY, b1's
// and b2's rows are otherwise the same, and the sample alone has no COPY
// column.
func TestProducersCopyColumn(t *testing.T) {
	root := t.TempDir()
	for _, b := range []string{"b1", "b2"} {
		if err := os.Rename(copyDir(t, sampleDir), filepath.Join(root, b)); err != nil {
			t.Fatal(err)
		}
	}
	out, errs, code := runCLI(t, "producers", "--progress", "never", root)
	if code != exitOK {
		t.Fatalf("producers: exit %d\n%s\n%s", code, out, errs)
	}
	if !regexp.MustCompile(`(?m)^TOPIC +PART +COPY +PID `).MatchString(out) {
		t.Fatalf("no COPY column:\n%s", out)
	}
	row := regexp.MustCompile(`(?m)^(\S+ +\S+) +(b1|b2) +(.*)$`)
	byCopy := map[string][]string{}
	for _, m := range row.FindAllStringSubmatch(out, -1) {
		byCopy[m[2]] = append(byCopy[m[2]], m[1]+" "+m[3])
	}
	if len(byCopy["b1"]) == 0 || strings.Join(byCopy["b1"], "\n") != strings.Join(byCopy["b2"], "\n") {
		t.Errorf("the copies' rows differ or are missing:\nb1 %q\nb2 %q\n%s", byCopy["b1"], byCopy["b2"], out)
	}
	if out, _, _ := runCLI(t, "producers", "--progress", "never", sampleDir); strings.Contains(out, "COPY") {
		t.Errorf("the sample alone has a COPY column:\n%s", out)
	}
}
