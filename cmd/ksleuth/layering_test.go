package main

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestLayering keeps the data flowing one way: parsers (segment,
// snapshot) know nothing of the analysis, the tables or the command line;
// the analysis knows nothing of the command line; the commands write no
// Parquet themselves.
func TestLayering(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-json", "github.com/ksleuth/ksleuth/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/ksleuth/ksleuth/"
	rules := []struct {
		pkg    string
		banned []string
	}{
		{mod + "segment", []string{mod + "analysis", "github.com/spf13/", "github.com/parquet-go/"}},
		{mod + "snapshot", []string{mod + "analysis", "github.com/spf13/", "github.com/parquet-go/"}},
		{mod + "analysis", []string{"github.com/spf13/", "golang.org/x/term", "github.com/schollz/progressbar"}},
		{mod + "cmd", []string{"github.com/parquet-go/"}},
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	n := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
		for _, r := range rules {
			if p.ImportPath != r.pkg && !strings.HasPrefix(p.ImportPath, r.pkg+"/") {
				continue
			}
			for _, imp := range p.Imports {
				for _, b := range r.banned {
					if strings.HasPrefix(imp, b) {
						t.Errorf("%s imports %s", p.ImportPath, imp)
					}
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d packages listed", n)
	}
}
