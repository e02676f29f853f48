package fileutil

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSHA256: the SHA-256 of "abc" is the FIPS 180-2 example digest.
func TestSHA256(t *testing.T) {
	p := filepath.Join(t.TempDir(), "abc")
	if err := os.WriteFile(p, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := SHA256(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; got != want {
		t.Errorf("SHA256 = %s, want %s", got, want)
	}
	if _, err := SHA256(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing file: want an error")
	}
}

// TestWriteAtomic: folders are created, the file holds the data with mode
// 0644, a rewrite replaces it, and no temporary file is left behind.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "out.json")
	for _, data := range []string{"first", "second"} {
		if err := WriteAtomic(p, []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != data {
			t.Errorf("content %q, want %q", got, data)
		}
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("%d files in the folder, want 1 (temporary file left?)", len(entries))
	}
}
