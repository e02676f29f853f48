package corpus

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLoadFolder: ids are slash-separated relative paths without extension,
// in lexical order; other extensions are ignored; CRLF and lone CR become LF
// as Python's open() reads them.
func TestLoadFolder(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"b.md":          "bee\r\nline two\rthree",
		"a/deep/x.TXT":  "ex",
		"a/notes.csv":   "ignored",
		"state.md":      "It’s — fine.",
		"z/readme.json": "{}",
	})
	for _, load := range []func(string) ([]Document, error){LoadFolder, Load} {
		docs, err := load(dir)
		if err != nil {
			t.Fatal(err)
		}
		want := []Document{{ID: "a/deep/x", Text: "ex"}, {ID: "b", Text: "bee\nline two\nthree"}, {ID: "state", Text: "It’s — fine."}}
		if d := cmp.Diff(want, docs); d != "" {
			t.Errorf("docs (-want +got):\n%s", d)
		}
	}
}

func TestLoadFolderErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		files map[string]string
		want  string
	}{
		"bad utf8":  {map[string]string{"d.md": "ok\nfine\xff more"}, "d.md:2: invalid UTF-8 at byte offset 7 (byte 0xff)"},
		"truncated": {map[string]string{"d.md": "caf\xc3"}, "d.md:1: invalid UTF-8 at byte offset 3 (byte 0xc3)"},
		"duplicate": {map[string]string{"a.md": "x", "a.txt": "y"}, `doc id "a" already given by`},
		"space":     {map[string]string{"my doc.md": "x"}, "contains white space"},
		"empty id":  {map[string]string{".md": "x"}, "empty doc id"},
		"no files":  {map[string]string{"a.csv": "x"}, "empty corpus: no .md or .txt file"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := LoadFolder(writeFiles(t, tc.files))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestLoadFolderUTF8Position: the invalid-UTF-8 error is a *LineError
// (srcpos.Error), so callers find its file and line with errors.As as for
// every other reader (it was a plain formatted error).
func TestLoadFolderUTF8Position(t *testing.T) {
	_, err := LoadFolder(writeFiles(t, map[string]string{"d.md": "ok\nfine\xff more"}))
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 || filepath.Base(le.File) != "d.md" {
		t.Fatalf("err = %v (%T), want a *LineError at d.md line 2", err, err)
	}
}

// TestRuneIndex: offsets of "a’b—c" by hand: ’ and — are 3 bytes each, so
// code points 0..5 sit at bytes 0, 1, 4, 5, 8, 9.
func TestRuneIndex(t *testing.T) {
	x := NewRuneIndex("a’b—c")
	if x.Runes() != 5 || x.Bytes() != 9 {
		t.Fatalf("Runes, Bytes = %d, %d; want 5, 9", x.Runes(), x.Bytes())
	}
	for r, b := range []int{0, 1, 4, 5, 8, 9} {
		if got, err := x.ByteOffset(r); err != nil || got != b {
			t.Errorf("ByteOffset(%d) = %d, %v; want %d", r, got, err, b)
		}
		if got, err := x.RuneOffset(b); err != nil || got != r {
			t.Errorf("RuneOffset(%d) = %d, %v; want %d", b, got, err, r)
		}
	}
	for _, b := range []int{-1, 2, 3, 10} {
		if _, err := x.RuneOffset(b); err == nil {
			t.Errorf("RuneOffset(%d): no error", b)
		}
	}
	for _, r := range []int{-1, 6} {
		if _, err := x.ByteOffset(r); err == nil {
			t.Errorf("ByteOffset(%d): no error", r)
		}
	}
	a := NewRuneIndex("plain")
	if got, _ := a.ByteOffset(5); got != 5 || a.Runes() != 5 {
		t.Errorf("ascii: ByteOffset(5) = %d, Runes %d", got, a.Runes())
	}
}

// FuzzLoadFolder: any file content loads without panicking; valid UTF-8
// loads with no CR left and invalid UTF-8 is refused.
func FuzzLoadFolder(f *testing.F) {
	for _, s := range []string{"", "a\r\nb", "\xff", "It’s", "\r\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		dir := writeFiles(t, map[string]string{"d.md": text})
		docs, err := LoadFolder(dir)
		if !utf8.ValidString(text) {
			if err == nil {
				t.Fatal("invalid UTF-8 accepted")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(docs[0].Text, "\r") {
			t.Fatalf("CR left in %q", docs[0].Text)
		}
		x := NewRuneIndex(docs[0].Text)
		if x.Runes() != utf8.RuneCountInString(docs[0].Text) {
			t.Fatalf("Runes %d", x.Runes())
		}
	})
}
