package export

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenFile: a directory and an existing file (unless replaced) are
// refused by why; the temporary files of killed runs are removed.
func TestOpenFile(t *testing.T) {
	dir := t.TempDir()
	var refused *RefusedError
	if _, _, err := OpenFile(dir, true); !errors.As(err, &refused) || refused.Why != NotUsable {
		t.Errorf("a directory: %v, want NotUsable", err)
	}
	page := filepath.Join(dir, "page.html")
	if err := os.WriteFile(page, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenFile(page, false); !errors.As(err, &refused) || refused.Why != Exists {
		t.Errorf("an existing file: %v, want Exists", err)
	}
	left := filepath.Join(dir, ".page.html"+tmpInfix+"1")
	if err := os.WriteFile(left, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	lock, removed, err := OpenFile(page, true)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if len(removed) != 1 || removed[0] != left {
		t.Errorf("removed %v, want %s", removed, left)
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", left, err)
	}
}
