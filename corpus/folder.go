package corpus

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// FolderExts are the file name endings LoadFolder reads (compared without
// regard to case); other files in the folder are ignored.
var FolderExts = []string{".md", ".txt"}

// LoadFolder reads a corpus given as a folder of files: every file under
// dir, at any depth, whose name ends in one of FolderExts is one Document.
// Its ID is the file's path relative to dir without the extension, with '/'
// between folders on every system ("corpora/state_of_the_union.md" read
// from "corpora" is "state_of_the_union"; "a/b.txt" is "a/b"); Title is "".
// Documents come in lexical path order (filepath.WalkDir's), so the result
// does not depend on the file system.
//
// Text is the file's content with line ends translated as Python's open()
// does by default (universal newlines: "\r\n" and a lone "\r" become "\n"),
// so that code-point offsets written by Python tools on the same file (Chroma's
// questions.csv, most labelling tools) address the same characters. A byte
// order mark is kept, as Python's "utf-8" codec keeps it.
//
// Errors: a file that is not valid UTF-8 (naming the file, its line and the
// byte offset of the first bad byte), two files giving the same id
// ("a.md" and "a.txt"), an id holding white space (no TREC file can name
// it), a symlink cycle or unreadable file, and a folder with no such file.
func LoadFolder(dir string) ([]Document, error) {
	var docs []Document
	from := map[string]string{} // id → file
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !hasFolderExt(path) {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		id := filepath.ToSlash(strings.TrimSuffix(rel, filepath.Ext(rel)))
		if prev, dup := from[id]; dup {
			return fmt.Errorf("%s: doc id %q already given by %s", path, id, prev)
		}
		if err := checkDocID(path, 0, "", id); err != nil {
			return fmt.Errorf("%s: %s", path, err.(*LineError).Msg)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := checkUTF8(path, b); err != nil {
			return err
		}
		from[id] = path
		docs = append(docs, Document{ID: id, Text: universalNewlines(string(b))})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s: empty corpus: no %s file in the folder", dir, strings.Join(FolderExts, " or "))
	}
	return docs, nil
}

func hasFolderExt(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	for _, e := range FolderExts {
		if ext == e {
			return true
		}
	}
	return false
}

// checkUTF8 names the line and byte offset of the first invalid byte of b.
func checkUTF8(path string, b []byte) error {
	if utf8.Valid(b) {
		return nil
	}
	line := 1
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return &LineError{File: path, Line: line, Msg: fmt.Sprintf("invalid UTF-8 at byte offset %d (byte 0x%02x)", i, b[i])}
		}
		if r == '\n' {
			line++
		}
		i += size
	}
	return nil
}

// universalNewlines turns "\r\n" and a lone "\r" into "\n".
func universalNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
