//go:build unix

package fileutil

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writers are WriteAtomic and WriteStream, which share the rules for a
// path that is a symbolic link or not a regular file.
var writers = map[string]func(path string, data []byte) error{
	"WriteAtomic": WriteAtomic,
	"WriteStream": func(path string, data []byte) error {
		return WriteStream(path, func(w io.Writer) error { _, err := w.Write(data); return err })
	},
}

// TestWriteThroughSymlink: a path that is a symbolic link to a file
// replaces the file it points at; the link stays a link (renaming over
// it made it a regular file and left its target unchanged).
func TestWriteThroughSymlink(t *testing.T) {
	for name, write := range writers {
		dir := t.TempDir()
		target, link := filepath.Join(dir, "summary.md"), filepath.Join(dir, "link.md")
		os.WriteFile(target, []byte("old\n"), 0o600)
		if err := os.Symlink("summary.md", link); err != nil {
			t.Fatal(err)
		}
		if err := write(link, []byte("new\n")); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: %s is no longer a symbolic link (%v)", name, link, err)
		}
		if got, _ := os.ReadFile(target); string(got) != "new\n" {
			t.Errorf("%s: target holds %q, want %q", name, got, "new\n")
		}
		if fi, _ := os.Stat(target); name == "WriteAtomic" && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: target mode %v, want its own 0600 kept", name, fi.Mode().Perm())
		}
	}
}

// TestWriteDanglingSymlink: a link to nothing is an error naming the path;
// the link is left as it was.
func TestWriteDanglingSymlink(t *testing.T) {
	for name, write := range writers {
		dir := t.TempDir()
		link := filepath.Join(dir, "link.md")
		os.Symlink("nowhere/x.md", link)
		err := write(link, []byte("new\n"))
		if err == nil || !strings.Contains(err.Error(), link) {
			t.Errorf("%s: err = %v, want an error naming %s", name, err, link)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: %s is no longer a symbolic link (%v)", name, link, err)
		}
	}
}

// TestWriteToFIFO: a named pipe is written in place (a reader gets the
// bytes; the pipe stays a pipe); with no reader it is an error at once,
// not a wait for one.
func TestWriteToFIFO(t *testing.T) {
	for name, write := range writers {
		dir := t.TempDir()
		p := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skip(err)
		}
		done := make(chan error, 1)
		go func() { done <- write(p, []byte("x\n")) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), p) {
				t.Errorf("%s: no reader: err = %v, want an error naming %s", name, err, p)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: writing a FIFO with no reader hangs", name)
		}
		r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := write(p, []byte("hello\n")); err != nil {
			t.Errorf("%s: with a reader: %v", name, err)
		}
		got := make([]byte, 16)
		n, _ := r.Read(got)
		r.Close()
		if string(got[:n]) != "hello\n" {
			t.Errorf("%s: reader got %q, want %q", name, got[:n], "hello\n")
		}
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("%s: %s is no longer a named pipe (%v)", name, p, err)
		}
	}
}

// TestWriteToFullDevice: /dev/full (a character device whose writes fail
// with ENOSPC) is written in place and its error is returned; it is not
// replaced by a regular file (renaming over it did that, and reported
// success).
func TestWriteToFullDevice(t *testing.T) {
	fi, err := os.Stat("/dev/full")
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skip("no /dev/full character device")
	}
	// A link in a temporary folder: the device itself must not be at risk
	// if the code under test renames over its path.
	link := filepath.Join(t.TempDir(), "full")
	os.Symlink("/dev/full", link)
	for name, write := range writers {
		err := write(link, []byte("x\n"))
		if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), link) {
			t.Errorf("%s: err = %v, want ENOSPC naming %s", name, err, link)
		}
	}
	if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/full is no longer a character device (%v)", err)
	}
}
