package fileutil

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteStream: the file appears only when write succeeds; a failing
// write leaves the old content and no temporary file.
func TestWriteStream(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "run.trec")
	if err := WriteStream(p, func(w io.Writer) error { _, err := io.WriteString(w, "old\n"); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteStream(p, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want write's error", err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "old\n" {
		t.Errorf("after a failed write: %q, want the old content", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("%d files in the folder, want 1 (pending file left?)", len(entries))
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
}

// TestWriteToDirectory: writing to a path that is a folder is an error
// saying so, before any write, and leaves no pending file in its parent
// (the rename failed with "file exists" after writing one).
func TestWriteToDirectory(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	if err := os.MkdirAll(filepath.Join(dir, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	called := false
	for name, err := range map[string]error{
		"WriteAtomic": WriteAtomic(dir, []byte("x")),
		"WriteStream": WriteStream(dir, func(w io.Writer) error { called = true; return nil }),
	} {
		if err == nil || err.Error() != dir+": is a directory, want a file path" {
			t.Errorf("%s(folder) = %v, want %q", name, err, dir+": is a directory, want a file path")
		}
	}
	if called {
		t.Error("WriteStream called write for a folder path")
	}
	if es, _ := os.ReadDir(parent); len(es) != 1 {
		t.Errorf("parent holds %d entries, want only the folder", len(es))
	}
}
