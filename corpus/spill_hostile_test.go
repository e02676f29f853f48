package corpus

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLoadSpilledHostile: corpora a user brings (raw non-UTF-8 bytes,
// escapes and lone surrogates, empty titles and texts at the start and the
// end, a 50 MB single document, TSV with and without titles, a folder)
// load the same spilled as on the heap, and Detach returns every text, and
// every substring of one, byte for byte.
func TestLoadSpilledHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB document")
	}
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := strings.Repeat("river stone cloud ", 50<<20/18)
	paths := []string{
		write("bytes.jsonl", "{\"_id\":\"e\",\"title\":\"\",\"text\":\"\"}\n"+
			"{\"_id\":\"a\",\"title\":\"lat\xe9n\",\"text\":\"caf\xe9 \xff\xfe end\"}\n"+
			"{\"_id\":\"b\",\"title\":\"q\\\"t\\\\\",\"text\":\"caf\\u00e9 \\ud800 lone \\ud83d\\ude00 \\n\\t\"}\n"+
			"{\"_id\":\"c\",\"text\":\"\\u0000nul\"}\n"+
			"{\"_id\":\"z\",\"title\":\"\",\"text\":\"\"}\n"),
		write("big.jsonl", "{\"_id\":\"s\",\"text\":\"x\"}\n{\"_id\":\"big\",\"title\":\"t\",\"text\":\""+big+"\"}\n{\"_id\":\"e\",\"text\":\"\"}\n"),
		write("three.tsv", "id\ttitle\ttext\na\t\t\nb\tT\tcaf\xe9\nc\t\tlast\n"),
		write("two.tsv", "a\t\nb\tx\xff\n"),
	}
	folder := filepath.Join(dir, "folder")
	os.Mkdir(folder, 0o755)
	os.WriteFile(filepath.Join(folder, "a.md"), []byte("# T\n\ncafé\n"), 0o644)
	os.WriteFile(filepath.Join(folder, "b.txt"), nil, 0o644)
	paths = append(paths, folder)
	for _, p := range paths {
		loadBoth(t, p)
		docs, _, err := LoadIndexed(p)
		if err != nil {
			t.Fatal(err)
		}
		got, _, tx, err := LoadSpilled(p, filepath.Join(t.TempDir(), "c"))
		if err != nil {
			t.Fatal(err)
		}
		if !tx.Spilled() && canSpill {
			t.Fatalf("%s: not spilled: %s", p, tx.Note())
		}
		for i, d := range got {
			tx.Release()
			for _, pair := range [][2]string{{d.Title, docs[i].Title}, {d.Text, docs[i].Text}} {
				s, want := pair[0], pair[1]
				if got := tx.Detach(s); got != want {
					t.Fatalf("%s: doc %d: Detach differs", p, i)
				}
				if len(s) > 2 {
					if got := tx.Detach(s[1 : len(s)-1]); got != want[1:len(want)-1] {
						t.Fatalf("%s: doc %d: Detach of a substring differs", p, i)
					}
					if got := tx.Detach(s[len(s)-1:]); got != want[len(want)-1:] {
						t.Fatalf("%s: doc %d: Detach of the last byte differs", p, i)
					}
				}
			}
		}
	}
}

// TestLoadSpilledNoteIsStable: the fall-back's note, which results.json
// and report.md carry, is the same from one run to the next on the same
// full disk: it names the cache folder and the cause, not the spill
// file's random name (a file that no longer exists, unlinked at once).
func TestLoadSpilledNoteIsStable(t *testing.T) {
	if !canSpill {
		t.Skip("no spill on this platform")
	}
	p := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(p, []byte(`{"_id":"b","text":"`+strings.Repeat("x", 3<<20)+`"}`+"\n"), 0o644)
	// What os.File.Write returns on a full disk: the file's name, ENOSPC.
	spillWriter = func(w io.Writer) io.Writer { return &realFullDisk{f: w.(*os.File)} }
	defer func() { spillWriter = nil }()
	dir := t.TempDir()
	var notes []string
	for range 2 {
		_, _, texts, err := LoadSpilled(p, dir)
		if err != nil {
			t.Fatal(err)
		}
		notes = append(notes, texts.Note())
	}
	if notes[0] != notes[1] || strings.Contains(notes[0], ".corpus-texts-") || !strings.Contains(notes[0], dir) || !strings.Contains(notes[0], "no space left") {
		t.Errorf("notes %q and %q: want one note naming %s and the cause, not the spill file", notes[0], notes[1], dir)
	}
}

// realFullDisk fails every write as os.File.Write does on a full disk.
type realFullDisk struct{ f *os.File }

func (d *realFullDisk) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: d.f.Name(), Err: syscall.ENOSPC}
}
