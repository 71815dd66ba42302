package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFileAtomic replaces the contents whole and leaves no temporary
// file behind.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "meta.json")
	for _, want := range []string{"first\n", "second, longer\n", "3\n"} {
		if err := WriteFileAtomic(p, []byte(want), 0o640); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != want {
			t.Fatalf("read %q (%v), want %q", got, err, want)
		}
	}
	if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v (%v)", st.Mode(), err)
	}
	if _, err := os.Stat(p + ".tmp"); !os.IsNotExist(err) {
		t.Fatalf("temporary file left: %v", err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "missing", "x"), nil, 0o640); err == nil {
		t.Fatal("a write into a missing directory succeeded")
	}
}
