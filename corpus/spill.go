package corpus

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/blevesearch/mmap-go"

	"github.com/ragbench/ragbench/internal/every"
	"github.com/ragbench/ragbench/internal/mapped"
)

// canSpill: the platform releases mapped pages (mapped.CanRelease, the
// Unix systems with madvise, which also keep an unlinked file while it is
// open or mapped); elsewhere (Windows, where an open file cannot be
// unlinked, and others) LoadSpilled keeps the texts on the heap.
const canSpill = mapped.CanRelease

// mapFile maps the first size bytes of f read-only and shared.
func mapFile(f *os.File, size int) ([]byte, error) {
	return mmap.MapRegion(f, size, mmap.RDONLY, 0, 0)
}

// Texts is where LoadSpilled put a corpus's titles and texts: in a spill
// file mapped read-only, or on the Go heap (Load's arena).
//
// Memory model: the loader writes each document's title and text, in
// order, to a file it creates in the folder it is given (the run's cache
// folder) and unlinks at once, so that nothing is left behind, whether the
// process ends normally, crashes or is interrupted (Unix keeps an unlinked
// file while it is open or mapped). Once every document is read, the file
// is mapped read-only and shared, and each Document.Title and
// Document.Text is a string pointing into the mapping (unsafe.String):
// the bytes are file-backed page-cache pages, outside the Go heap and its
// collector's goal (GOGC lets the heap grow to twice what is live; the
// texts no longer count). For a JSONL or TSV corpus the documents table
// (the []Document itself) and the ids are outside the Go heap too, in
// anonymous mappings (spiller.anon) the collector neither scans nor
// counts; a folder corpus's stay on the heap. The pages a process has
// touched count in its RSS (RssFile) until Release drops them from its
// page tables (madvise MADV_DONTNEED: for a read-only shared file mapping
// this frees no data; the next read faults the same bytes back in from the
// page cache, or from the file once the kernel reclaimed them). The mapping
// is never unmapped: strings into it may live anywhere (chunks, runs,
// reports) for the rest of the process, so a Texts is for a process that
// loads its corpus once (bench run), not for a long-lived one loading many.
//
// Errors: a spill that cannot be created, written or mapped (a full disk, a
// cache folder that is read-only or cannot be created, a mapping refused)
// is not an error: LoadSpilled reads the corpus again onto the heap, and
// Note says why, for the user to see; the documents are the same either
// way. The corpus's own errors are Load's.
//
// Platforms: the Unix systems with mmap and madvise (Linux, the BSDs,
// macOS, Solaris); elsewhere (Windows, where an open file cannot be
// unlinked, and others) the texts stay on the heap, without a note.
type Texts struct {
	mem  []byte   // the read-only mapping; nil on the heap, or when every title and text is empty
	f    *os.File // the spill file, open for Detach's reads (nil with mem)
	note string   // why the texts are on the heap although a spill was asked for
}

// Spilled reports whether the texts are in a mapped spill file.
func (t *Texts) Spilled() bool { return t != nil && t.mem != nil }

// Bytes is the size of the spill file: the corpus's titles and texts (0
// on the heap).
func (t *Texts) Bytes() int {
	if t == nil {
		return 0
	}
	return len(t.mem)
}

// Note is why the texts are on the heap although a spill was asked for
// ("" when they are spilled, or when the platform cannot spill).
func (t *Texts) Note() string {
	if t == nil {
		return ""
	}
	return t.note
}

// Detach returns s, or, when s lies in the spill mapping (a document's
// title or text, or a substring of one: a chunk's text), a copy of it on
// the Go heap read from the spill file by offset (pread), without touching
// the mapping. It is for random lookups after Release (a miss's snippet, a
// hole's text, a gold passage): the kernel maps back a whole block of up to
// 64 KiB around each page a read through the mapping faults in, so the
// 100,000 lookups of scoring 1,000 queries at depth 100 bring most of a
// 1.3 GB spill back into the RSS, where reading them by offset adds only
// the copies, which the collector frees. A failed read (it cannot fail on
// an open file) falls back to copying through the mapping: the same bytes.
func (t *Texts) Detach(s string) string {
	if !t.Spilled() || t.f == nil || len(s) == 0 || len(s) > len(t.mem) {
		return s
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	base := uintptr(unsafe.Pointer(&t.mem[0]))
	if p < base || p-base > uintptr(len(t.mem)-len(s)) {
		return s
	}
	buf := make([]byte, len(s))
	if _, err := t.f.ReadAt(buf, int64(p-base)); err != nil {
		return strings.Clone(s)
	}
	return unsafe.String(&buf[0], len(buf))
}

// PaceInterval is how often Paced releases the texts' pages during a pass.
// A pass holds about what it reads in one interval: a fast one (the
// corpus hash after the load) held 200–290 MB of spill pages at once for
// a moment at 250 ms, which made a 3 M-document run's peak RSS; at 50 ms
// it holds a fifth of that, and a BM25 build (about 10 MB of a synthetic
// corpus a second) well under one MB. Releasing a mostly released mapping
// costs microseconds, 20 times a second.
const PaceInterval = 50 * time.Millisecond

// Paced runs pass, a sequential pass over the texts (an index build, the
// corpus hash, the dataset's checks) whose pages it does not read again,
// releasing them every PaceInterval while it runs and once after it: the
// pass then holds about one interval's pages in the RSS, not the whole
// spill (Release alone after the pass bounds nothing during it: a 3 M-
// document BM25 build had the whole 1.2 GB spill resident at its end).
// Releasing while pass reads is safe: a released page is faulted back in
// with the same bytes. On the heap Paced is pass itself.
func (t *Texts) Paced(pass func()) {
	if !t.Spilled() {
		pass()
		return
	}
	stop := every.Start(PaceInterval, func() bool { t.Release(); return true })
	defer func() {
		stop()
		t.Release()
	}()
	pass()
}

// Release drops the texts' pages from the process's resident set, after a
// sequential pass over them (see Texts); the strings stay valid, and a
// later read faults the bytes back in. Nothing to do on the heap. The
// advice failing (it cannot on a valid mapping) changes nothing but the
// RSS, so it is ignored.
func (t *Texts) Release() {
	if t.Spilled() {
		mapped.Release(t.mem)
	}
}

// LoadSpilled is LoadIndexed with the documents' titles and texts in a
// spill file in dir, mapped read-only (see Texts for the memory model,
// errors and platforms). dir is created when missing, and removed again
// when LoadSpilled created it (it holds nothing once the file is
// unlinked). An empty dir keeps the texts on the heap. A JSONL or TSV
// corpus is spilled line by line, its texts never on the heap (an escaped
// one is decoded there first); a folder corpus (LoadFolder) is read whole,
// then spilled.
func LoadSpilled(path, dir string) ([]Document, *IDIndex, *Texts, error) {
	if !canSpill || dir == "" {
		docs, byID, err := LoadIndexed(path)
		return docs, byID, &Texts{}, err
	}
	sp, err := newSpiller(dir)
	if err == nil {
		docs, byID, lerr := load(path, sp)
		var se *spillError
		switch {
		case errors.As(lerr, &se):
			err = se.err
		case lerr != nil:
			sp.f.Close()
			sp.free()
			return nil, nil, nil, lerr
		default:
			t, ferr := sp.finish(docs)
			if ferr == nil {
				return docs, byID, t, nil
			}
			err = ferr
		}
		sp.f.Close()
		docs, byID = nil, nil
		sp.free()
	}
	docs, byID, lerr := LoadIndexed(path)
	if lerr != nil {
		return nil, nil, nil, lerr
	}
	// The spill file's own name is random and gone (unlinked): the note,
	// which results.json carries, names the folder and the cause only.
	var pe *fs.PathError
	if errors.As(err, &pe) && filepath.Dir(pe.Path) == filepath.Clean(dir) {
		err = fmt.Errorf("%s the spill file: %w", pe.Op, pe.Err)
	}
	note := fmt.Sprintf("corpus texts: held on the Go heap, not in a spill file in %s (%v); the results are the same, the memory is larger", dir, err)
	return docs, byID, &Texts{note: note}, nil
}

// spillError is an error writing the spill file (not the corpus's).
type spillError struct{ err error }

func (e *spillError) Error() string { return "spill: " + e.err.Error() }

// spiller writes the titles and texts of a corpus being loaded to its
// unlinked spill file, then maps them (finish).
type spiller struct {
	f    *os.File
	w    *bufio.Writer
	lens []uint32 // each document's title and text lengths, in order (anonSlice)
	size int64    // bytes written
	// maps are the anonymous mappings holding a JSONL or TSV corpus's
	// documents table and ids (anon), outside the Go heap.
	maps [][]byte
}

// anon returns n zeroed bytes outside the Go heap (mapped.Anon), for the
// documents table and the ids of a JSONL or TSV corpus being spilled: with
// the titles and texts in the spill, a Document holds no pointer into the
// Go heap, so the table and the ids can live where the collector neither
// scans them nor counts them in the live heap, which sets how far the
// heap grows before each collection (GOGC: up to twice the live heap, or
// the headroom of internal/gcpace): on the heap, the 48-byte Documents and
// their ids cost their size twice in the run's peak memory (issue 27).
// Untouched pages cost nothing, so a table can be reserved larger than it
// turns out. The mappings are never unmapped once the load succeeded
// (like the spill's, they live as long as the process: see Texts); free
// unmaps them after a failed one. A refused mapping is a *spillError (the
// corpus is then loaded on the heap).
func (sp *spiller) anon(n int) ([]byte, error) {
	b, ok := mapped.Anon(n)
	if !ok {
		return nil, &spillError{fmt.Errorf("cannot map %d bytes of memory for the documents", n)}
	}
	sp.maps = append(sp.maps, b)
	return b, nil
}

// anonSlice returns an empty slice with room for n elements (at least
// 1024) in a mapping of sp's (anon): for the documents table, whose
// strings point outside the heap, and for pointer-free lists (the
// texts' lengths, the documents' lines).
func anonSlice[T any](sp *spiller, n int) ([]T, error) {
	n = max(n, 1024)
	var z T
	b, err := sp.anon(n * int(unsafe.Sizeof(z)))
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)[:0], nil
}

// anonAppend is append(s, v) for a slice from anonSlice (or nil): a full
// one is copied to a mapping twice as large and its own unmapped.
func anonAppend[T any](sp *spiller, s []T, v T) ([]T, error) {
	if len(s) == cap(s) {
		bigger, err := anonSlice[T](sp, 2*cap(s))
		if err != nil {
			return nil, err
		}
		bigger = append(bigger, s...)
		unmapSlice(sp, s)
		s = bigger
	}
	return append(s, v), nil
}

// unmapSlice unmaps the mapping of sp's that s (from anonSlice) starts,
// if any.
func unmapSlice[T any](sp *spiller, s []T) {
	if cap(s) > 0 {
		sp.unmap(unsafe.Pointer(unsafe.SliceData(s)))
	}
}

// slots is the documents' index's slot tables (IDIndex), outside the Go
// heap with the table (anon); a refused mapping leaves a table on the
// heap (it holds no pointer, so either is safe).
func (sp *spiller) slots() *slotTables {
	return &slotTables{
		alloc: func(n int) []uint32 {
			b, err := sp.anon(4 * n)
			if err != nil {
				return nil
			}
			return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), n)
		},
		free: func(s []uint32) { sp.unmap(unsafe.Pointer(unsafe.SliceData(s))) },
	}
}

// unmap unmaps the mapping of sp.maps that starts at p, if any.
func (sp *spiller) unmap(p unsafe.Pointer) {
	for i, m := range sp.maps {
		if unsafe.Pointer(&m[0]) == p {
			mapped.Free(m)
			sp.maps = slices.Delete(sp.maps, i, i+1)
			return
		}
	}
}

// free unmaps the documents table and ids of a failed load (nothing may
// use them afterwards).
func (sp *spiller) free() {
	for _, m := range sp.maps {
		mapped.Free(m)
	}
	sp.maps = nil
}

// spillWriter, when set (tests), wraps the spill file's writer, to fail
// it as a full disk would.
var spillWriter func(io.Writer) io.Writer

// newSpiller creates the spill file in dir (created when missing, then
// removed again with the parents it needed) and unlinks it.
func newSpiller(dir string) (*spiller, error) {
	created, err := mkdirs(dir)
	defer func() {
		for _, d := range created { // deepest first; empty once the file is unlinked
			os.Remove(d)
		}
	}()
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".corpus-texts-*.spill")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	var w io.Writer = f
	if spillWriter != nil {
		w = spillWriter(w)
	}
	return &spiller{f: f, w: bufio.NewWriterSize(w, spillWrite)}, nil
}

// spillWrite is the size of the spill's writes. Linux (6.x) caches a
// file's pages in folios as large as the writes that made them, and a
// fault maps the whole folio: with 1 MiB writes, each random read of a
// released text (a prompt's chunk, a miss's snippet) mapped 1 MiB back
// into the RSS; with 64 KiB writes it maps the kernel's fault-around
// window (64 KiB), 16 times less. (A sweep's thousand queries still map
// most of the texts back while scoring.)
const spillWrite = 64 << 10

// mkdirs is os.MkdirAll(dir) that returns the folders it created,
// deepest first.
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	err := os.MkdirAll(dir, 0o755)
	var created []string
	for _, d := range missing {
		if fi, serr := os.Lstat(d); serr == nil && fi.IsDir() {
			created = append(created, d)
		}
	}
	return created, err
}

// put writes d's title and text to the spill and empties them (finish
// points them into the mapping). A nil spiller does nothing.
func (sp *spiller) put(d *Document) error {
	if sp == nil {
		return nil
	}
	for _, s := range [2]string{d.Title, d.Text} {
		if uint64(len(s)) > math.MaxUint32 {
			return &spillError{fmt.Errorf("document %q: a text of %d bytes", d.ID, len(s))}
		}
		if _, err := sp.w.WriteString(s); err != nil {
			return &spillError{err}
		}
		var err error
		if sp.lens, err = anonAppend(sp, sp.lens, uint32(len(s))); err != nil {
			return err
		}
		sp.size += int64(len(s))
	}
	d.Title, d.Text = "", ""
	return nil
}

// finish maps the spill file and points each document's title and text
// (docs are those put, in order) into the mapping. The file stays open on
// success, for Detach's reads.
func (sp *spiller) finish(docs []Document) (*Texts, error) {
	defer func() { // the lengths are in the documents once finished (or the load fails)
		unmapSlice(sp, sp.lens)
		sp.lens = nil
	}()
	if err := sp.w.Flush(); err != nil {
		return nil, err
	}
	if len(sp.lens) != 2*len(docs) {
		return nil, fmt.Errorf("%d texts spilled for %d documents", len(sp.lens), len(docs))
	}
	if sp.size == 0 { // every title and text empty: nothing to map
		sp.f.Close()
		return &Texts{}, nil
	}
	if sp.size > math.MaxInt {
		return nil, fmt.Errorf("%d bytes cannot be mapped on this platform", sp.size)
	}
	mem, err := mapFile(sp.f, int(sp.size))
	if err != nil {
		return nil, err
	}
	off := 0
	view := func(n uint32) string {
		if n == 0 {
			return ""
		}
		s := unsafe.String(&mem[off], int(n))
		off += int(n)
		return s
	}
	for i := range docs {
		docs[i].Title = view(sp.lens[2*i])
		docs[i].Text = view(sp.lens[2*i+1])
	}
	return &Texts{mem: mem, f: sp.f}, nil
}
