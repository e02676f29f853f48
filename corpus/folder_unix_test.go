//go:build unix

package corpus

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// loadFolderWithin runs LoadFolder and fails the test when it has not
// returned after 10 s (a FIFO used to hang it for good).
func loadFolderWithin(t *testing.T, dir string) ([]Document, error) {
	t.Helper()
	type result struct {
		docs []Document
		err  error
	}
	done := make(chan result, 1)
	go func() {
		docs, err := LoadFolder(dir)
		done <- result{docs, err}
	}()
	select {
	case r := <-done:
		return r.docs, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("LoadFolder(%s) still running after 10 s", dir)
		return nil, nil
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestLoadFolderSymlinkedFolder: a linked subfolder (corpus/asia ->
// ../real/asia) is read like a real one, ids under the link's name, as a
// linked file already was (it was skipped silently: "documents: 1").
func TestLoadFolderSymlinkedFolder(t *testing.T) {
	top := writeFiles(t, map[string]string{
		"real/asia/japan.md":  "Tokyo.",
		"real/europe.txt":     "Paris.",
		"corpus/france.md":    "Paris is in France.",
		"corpus/z/plain.md":   "plain",
		"elsewhere/notes.csv": "ignored",
	})
	corpusDir := filepath.Join(top, "corpus")
	symlink(t, "../real/asia", filepath.Join(corpusDir, "asia"))
	symlink(t, "../real/europe.txt", filepath.Join(corpusDir, "europe.md"))
	symlink(t, filepath.Join(top, "elsewhere"), filepath.Join(corpusDir, "other"))
	docs, err := loadFolderWithin(t, corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Document{{ID: "asia/japan", Text: "Tokyo."}, {ID: "europe", Text: "Paris."},
		{ID: "france", Text: "Paris is in France."}, {ID: "z/plain", Text: "plain"}}
	if d := cmp.Diff(want, docs); d != "" {
		t.Errorf("docs (-want +got):\n%s", d)
	}
}

// TestLoadFolderSymlinkCycle: a link back to a folder it is inside of is a
// named error, never an endless walk; the same folder linked twice side by
// side is no cycle.
func TestLoadFolderSymlinkCycle(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a/b/x.md": "x", "shared/s.md": "s"})
	symlink(t, "../..", filepath.Join(dir, "a", "b", "up"))
	symlink(t, "../shared", filepath.Join(dir, "a", "s1"))
	symlink(t, "../shared", filepath.Join(dir, "a", "s2"))
	_, err := loadFolderWithin(t, dir)
	want := filepath.Join(dir, "a", "b", "up") + ": symbolic link cycle: it leads back to " + dir + ", a folder it is inside of"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if err := os.Remove(filepath.Join(dir, "a", "b", "up")); err != nil {
		t.Fatal(err)
	}
	docs, err := loadFolderWithin(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	if d := cmp.Diff([]string{"a/b/x", "a/s1/s", "a/s2/s", "shared/s"}, ids); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
}

// TestLoadFolderSpecialFiles: a FIFO named *.md and a link to /dev/zero
// named *.md used to hang LoadFolder (and bench run, --check); both are
// refused at once, each naming its path and what it is, in one pass.
func TestLoadFolderSpecialFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{"ok.md": "fine"})
	fifo := filepath.Join(dir, "pipe.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	zero := filepath.Join(dir, "zero.md")
	symlink(t, "/dev/zero", zero)
	_, err := loadFolderWithin(t, dir)
	want := fifo + ": a named pipe (FIFO), not a regular file: a folder corpus reads regular files only\n" +
		zero + ": a character device, not a regular file: a folder corpus reads regular files only"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	var le *LineError
	if !errors.As(err, &le) || le.File != fifo {
		t.Errorf("errors.As: %#v, want a *LineError for %s", le, fifo)
	}
}

// TestReadRegularRefusesFIFO: a FIFO put where a regular file was, after
// the walk looked, is refused as it is opened, not waited on.
func TestReadRegularRefusesFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "p.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := readRegular(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "a named pipe (FIFO), not a regular file") {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("readRegular waits on a FIFO")
	}
}

// TestLoadFolderBadFileName: a file name that is not valid UTF-8 used to
// load, then fail in the first cell with `bm25: index id 1 is "\ufffd"`
// naming no file; it is refused at load, the name written Go-quoted.
func TestLoadFolderBadFileName(t *testing.T) {
	dir := writeFiles(t, map[string]string{"caf\xe9.md": "coffee", "sub\xff/x.md": "x", "tea.md": "tea"})
	_, err := loadFolderWithin(t, dir)
	want := `"` + dir + `/caf\xe9.md": file name is not valid UTF-8 (byte 0xe9): doc ids are UTF-8 text; rename the file` + "\n" +
		`"` + dir + `/sub\xff/x.md": file name is not valid UTF-8 (byte 0xff): doc ids are UTF-8 text; rename the file`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

// TestLoadFolderAllProblems: every problem of the folder comes in one error,
// one per line, in path order (the first used to end the load).
func TestLoadFolderAllProblems(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.md": "x", "a.txt": "y", "b.md": "ok\n\xff", "c d.md": "x", "e.md": "fine",
	})
	symlink(t, "nowhere", filepath.Join(dir, "gone"))
	_, err := loadFolderWithin(t, dir)
	want := dir + `/a.txt: doc id "a" already given by ` + dir + "/a.md\n" +
		dir + "/b.md:2: invalid UTF-8 at byte offset 3 (byte 0xff)\n" +
		dir + `/c d.md: doc id "c d" contains white space (TREC run and qrels files cannot hold it)` + "\n" +
		dir + "/gone: broken symbolic link to nowhere (no such file or directory): remove it or point it at a file or folder"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

// FuzzFolderWalk builds a folder from a small script (files, folders,
// links to folders and files, broken links, FIFOs; names with white space,
// bad UTF-8, clashing ids) and loads it: LoadFolder returns within 10 s,
// gives the same answer twice, names a path under the folder on every
// error line, and otherwise returns valid ids and texts; on a tree with no
// links its documents are those filepath.WalkDir finds.
func FuzzFolderWalk(f *testing.F) {
	for _, s := range []string{"", "\x00\x00", "\x01\x03\x00\x00\x02\x05", "\x01\x03\x02\x0d", "\x04\x00\x00\x01", "\x00\x05\x00\x08", "\x03\x00\x03\x01"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, script []byte) {
		dir, links := buildFolder(t, script)
		docs, err := loadFolderWithin(t, dir)
		docs2, err2 := loadFolderWithin(t, dir)
		if fmt.Sprint(err) != fmt.Sprint(err2) || !cmp.Equal(docs, docs2) {
			t.Fatalf("two loads differ: %v / %v", err, err2)
		}
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, dir) && !strings.HasPrefix(line, strconv.Quote(dir)[:len(dir)+1]) {
					t.Fatalf("error line names no path under the folder: %q", line)
				}
			}
			return
		}
		seen := map[string]bool{}
		for _, d := range docs {
			if seen[d.ID] || !utf8.ValidString(d.ID) || d.ID == "" || strings.ContainsAny(d.ID, " \t\n\r\v\f") {
				t.Fatalf("bad or repeated id %q", d.ID)
			}
			seen[d.ID] = true
			if !utf8.ValidString(d.Text) || strings.Contains(d.Text, "\r") {
				t.Fatalf("%s: text %q", d.ID, d.Text)
			}
		}
		if links == 0 {
			var want []Document
			filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
				if err == nil && e.Type().IsRegular() && hasFolderExt(p) {
					b, _ := os.ReadFile(p)
					rel, _ := filepath.Rel(dir, p)
					want = append(want, Document{ID: strings.TrimSuffix(rel, filepath.Ext(rel)), Text: universalNewlines(string(b))})
				}
				return nil
			})
			if d := cmp.Diff(want, docs, cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("docs differ from filepath.WalkDir's (-want +got):\n%s", d)
			}
		}
	})
}

// buildFolder makes the tree script describes, two bytes an entry (at most
// 12 entries and 3 links to folders, so the tree stays small): the first
// byte's value mod 6 says what (file, folder, link to a folder, link to a
// file, broken link, FIFO), the second picks a name and the folder it goes
// in. It returns the folder and how many links it holds.
func buildFolder(t *testing.T, script []byte) (string, int) {
	names := []string{"a.md", "b.txt", "C.MD", "d", "e f.md", "caf\xe9.md", ".md", "g.csv", "a.txt", "h"}
	texts := []string{"x", "ok\n\xff", "a\r\nb\rc", ""}
	dir := t.TempDir()
	dirs, files := []string{dir}, []string(nil)
	links, dirLinks := 0, 0
	for i := 0; i+1 < len(script) && i < 24; i += 2 {
		op, arg := int(script[i]%6), int(script[i+1])
		p := filepath.Join(dirs[arg/len(names)%len(dirs)], names[arg%len(names)])
		if _, err := os.Lstat(p); err == nil {
			continue
		}
		switch op {
		case 0:
			os.WriteFile(p, []byte(texts[arg%len(texts)]), 0o644)
			files = append(files, p)
		case 1:
			if os.Mkdir(p, 0o755) == nil {
				dirs = append(dirs, p)
			}
		case 2:
			if dirLinks < 3 {
				to, _ := filepath.Rel(filepath.Dir(p), dirs[arg%len(dirs)])
				if os.Symlink(to, p) == nil {
					links++
					dirLinks++
				}
			}
		case 3:
			if len(files) > 0 && os.Symlink(files[arg%len(files)], p) == nil {
				links++
			}
		case 4:
			if os.Symlink("missing", p) == nil {
				links++
			}
		case 5:
			syscall.Mkfifo(p, 0o644)
		}
	}
	return dir, links
}
