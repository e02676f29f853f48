package corpus

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
// Documents come in lexical path order (each folder's entries sorted by
// name, as filepath.WalkDir gives them), so the result does not depend on
// the file system.
//
// Symbolic links are followed, to files and to folders alike (a linked
// folder "asia -> ../real/asia" gives ids "asia/…"); a link that leads back
// to a folder it is inside of is a cycle, refused. Only regular files are
// read: a name ending in one of FolderExts that is a named pipe, a device
// (or a link to one, such as /dev/zero), a socket or a folder is refused, so
// that loading never waits on a pipe or reads an endless device.
//
// Text is the file's content with line ends translated as Python's open()
// does by default (universal newlines: "\r\n" and a lone "\r" become "\n"),
// so that code-point offsets written by Python tools on the same file (Chroma's
// questions.csv, most labelling tools) address the same characters. A byte
// order mark is kept, as Python's "utf-8" codec keeps it.
//
// Errors, every one of the folder in one pass (joined with errors.Join, one
// per line; each a *LineError naming the file): a file name that is not
// valid UTF-8 (doc ids are UTF-8 text in every index and report; the name
// is written Go-quoted, its bad bytes as \x escapes), a file that is not
// valid UTF-8 (its line and the byte offset of the first bad byte), two
// files giving the same id ("a.md" and "a.txt"), an id holding white space
// (no TREC file can name it), a file that is not a regular file, a symbolic
// link cycle, a broken symbolic link, an unreadable file or folder; and a
// folder with no such file ("empty corpus").
func LoadFolder(dir string) ([]Document, error) {
	root, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !root.IsDir() {
		return nil, fmt.Errorf("%s: not a folder", dir)
	}
	w := folderWalk{root: dir, from: map[string]string{}}
	w.walk(dir, []os.FileInfo{root})
	if len(w.errs) > 0 {
		return nil, errors.Join(w.errs...)
	}
	if len(w.docs) == 0 {
		return nil, fmt.Errorf("%s: empty corpus: no %s file in the folder", dir, strings.Join(FolderExts, " or "))
	}
	return w.docs, nil
}

// folderWalk is one LoadFolder pass: the documents read so far, the file
// each id came from, and every problem met.
type folderWalk struct {
	root string
	docs []Document
	from map[string]string // id → file
	errs []error
}

func (w *folderWalk) fail(path, msg string) {
	w.errs = append(w.errs, &LineError{File: path, Msg: msg})
}

// walk reads the folder path, whose own FileInfo (after links) ends
// ancestors, the chain of folders from the root down to it.
func (w *folderWalk) walk(path string, ancestors []os.FileInfo) {
	entries, err := os.ReadDir(path) // sorted by name
	if err != nil {
		w.fail(path, fmt.Sprintf("cannot read the folder: %v", unwrapPathErr(err)))
		return
	}
	for _, e := range entries {
		p := filepath.Join(path, e.Name())
		fi, err := w.target(p, e)
		if err != nil || fi == nil {
			continue
		}
		if fi.IsDir() {
			if anc := cycleAt(ancestors, fi); anc >= 0 {
				w.fail(p, fmt.Sprintf("symbolic link cycle: it leads back to %s, a folder it is inside of", w.ancestorPath(p, len(ancestors)-anc)))
				continue
			}
			w.walk(p, append(ancestors[:len(ancestors):len(ancestors)], fi))
			continue
		}
		if hasFolderExt(p) {
			w.file(p, fi)
		}
	}
}

// target is what the entry e at p is after symbolic links: nil (and no
// error) for a link that is broken, reported.
func (w *folderWalk) target(p string, e fs.DirEntry) (os.FileInfo, error) {
	if e.Type()&fs.ModeSymlink == 0 {
		return e.Info()
	}
	fi, err := os.Stat(p)
	if err != nil {
		dest, _ := os.Readlink(p)
		w.fail(p, fmt.Sprintf("broken symbolic link to %s (%v): remove it or point it at a file or folder", dest, unwrapPathErr(err)))
		return nil, nil
	}
	return fi, nil
}

// ancestorPath names the folder up levels above p's folder (0: p's folder).
func (w *folderWalk) ancestorPath(p string, up int) string {
	d := filepath.Dir(p)
	for i := 1; i < up; i++ {
		d = filepath.Dir(d)
	}
	return d
}

// cycleAt is the index in ancestors of the folder fi is, or -1.
func cycleAt(ancestors []os.FileInfo, fi os.FileInfo) int {
	for i, a := range ancestors {
		if os.SameFile(a, fi) {
			return i
		}
	}
	return -1
}

// file reads the corpus file p (fi: what it is after links) as one
// document, or records why not.
func (w *folderWalk) file(p string, fi os.FileInfo) {
	rel, err := filepath.Rel(w.root, p)
	if err != nil {
		w.errs = append(w.errs, err)
		return
	}
	if !utf8.ValidString(rel) {
		w.errs = append(w.errs, &LineError{File: strconv.Quote(p), Msg: fmt.Sprintf(
			"file name is not valid UTF-8 (byte 0x%02x): doc ids are UTF-8 text; rename the file", rel[firstInvalid(rel)])})
		return
	}
	if !fi.Mode().IsRegular() {
		w.fail(p, fmt.Sprintf("%s, not a regular file: a folder corpus reads regular files only", fileKind(fi.Mode())))
		return
	}
	id := filepath.ToSlash(strings.TrimSuffix(rel, filepath.Ext(rel)))
	if prev, dup := w.from[id]; dup {
		w.fail(p, fmt.Sprintf("doc id %q already given by %s", id, prev))
		return
	}
	w.from[id] = p
	if err := checkDocID(p, 0, "", id); err != nil {
		w.errs = append(w.errs, err)
		return
	}
	b, err := readRegular(p)
	if err != nil {
		w.errs = append(w.errs, err)
		return
	}
	if err := checkUTF8(p, b); err != nil {
		w.errs = append(w.errs, err)
		return
	}
	w.docs = append(w.docs, Document{ID: id, Text: universalNewlines(string(b))})
}

// readRegular reads the file at path, refusing anything but a regular file
// as it is opened: non-blocking, so that a named pipe put in the file's place
// after LoadFolder looked is refused instead of waited on.
func readRegular(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, &LineError{File: path, Msg: fmt.Sprintf("cannot open: %v", unwrapPathErr(err))}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, &LineError{File: path, Msg: fmt.Sprintf("cannot stat: %v", unwrapPathErr(err))}
	}
	if !fi.Mode().IsRegular() {
		return nil, &LineError{File: path, Msg: fmt.Sprintf("%s, not a regular file: a folder corpus reads regular files only", fileKind(fi.Mode()))}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, &LineError{File: path, Msg: fmt.Sprintf("cannot read: %v", unwrapPathErr(err))}
	}
	return b, nil
}

// fileKind names what a non-regular file is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	default:
		return "a special file (mode " + m.String() + ")"
	}
}

// unwrapPathErr drops the path an *fs.PathError repeats (the messages
// above name it already).
func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// firstInvalid is the byte offset of s's first invalid UTF-8 byte (len(s)
// when there is none).
func firstInvalid(s string) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(s)
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
