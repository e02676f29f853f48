package bm25

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/blevesearch/mmap-go"
)

// ragbench's records beside the bleve segments in an index folder, one
// entry per chunk in ordinal (chunk) order, written as the chunks stream by
// and memory-mapped when the index is opened, so that no per-chunk
// structure lives on the Go heap however large the corpus:
//
//	ids.bin      the chunk ids' bytes, concatenated
//	ids.off      N + 1 little-endian uint64 offsets into ids.bin
//	lengths.bin  N × F little-endian int32 token counts (chunk-major, fields in fieldNames order)
//	norms.bin    N × F bytes: Lucene's one-byte length (SmallFloat.intToByte4) of each
//
// meta (ragbench-bm25.json) records each file's size and CRC-32, checked when
// the index is opened.
const (
	idsFile     = "ids.bin"
	offsFile    = "ids.off"
	lengthsFile = "lengths.bin"
	normsFile   = "norms.bin"
)

var sideFileNames = []string{idsFile, offsFile, lengthsFile, normsFile}

// meta is what an index folder records beside the bleve index (JSON).
type meta struct {
	Format   int    `json:"format"`
	Key      string `json:"key"`
	Analyzer string `json:"analyzer"`
	Fields   string `json:"fields"`
	// Layout is layoutSegments (zap segments read by ragbench, Lucene
	// scoring) or layoutScorch (one scorch index, bleve's native scoring).
	Layout   string             `json:"layout"`
	Count    int                `json:"count"`
	Segments []segMeta          `json:"segments,omitempty"`
	Stats    []fieldStat        `json:"field_stats"`
	Files    map[string]fileSum `json:"files"`
}

// segMeta is one zap segment of a layoutSegments index: its file (in the
// index folder) and number of chunks, in ordinal order.
type segMeta struct {
	File string `json:"file"`
	Docs int    `json:"docs"`
}

// fieldStat is a field's Lucene collection statistics: items with at least
// one token (docCount) and the sum of their lengths.
type fieldStat struct {
	DocCount  int   `json:"doc_count"`
	SumLength int64 `json:"sum_length"`
}

type fileSum struct {
	Size  int64  `json:"size"`
	CRC32 uint32 `json:"crc32"`
}

// sideWriter is one side file being written: buffered, checksummed.
type sideWriter struct {
	f   *os.File
	w   *bufio.Writer
	crc hash.Hash32
	n   int64
}

func (s *sideWriter) Write(p []byte) (int, error) {
	s.crc.Write(p)
	s.n += int64(len(p))
	return s.w.Write(p)
}

// recordWriter writes the side files of one index folder as chunks stream
// by: ids first (addID, in ordinal order), lengths as each batch is
// analysed (addLengths, in ordinal order too).
type recordWriter struct {
	files    map[string]*sideWriter
	nf       int
	ids, lns int // chunks whose id, lengths were added
	off      uint64
	stats    []fieldStat
	idBuf    []byte // addID's scratch (the producer's goroutine)
	lenBuf   []byte // addLengths' scratch (the collector's goroutine)
}

func newRecordWriter(dir string, nf int) (*recordWriter, error) {
	w := &recordWriter{files: map[string]*sideWriter{}, nf: nf, stats: make([]fieldStat, nf)}
	for _, name := range sideFileNames {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			w.abort()
			return nil, fmt.Errorf("bm25: %w", err)
		}
		w.files[name] = &sideWriter{f: f, w: bufio.NewWriterSize(f, 64<<10), crc: crc32.NewIEEE()}
	}
	_, err := w.files[offsFile].Write(binary.LittleEndian.AppendUint64(nil, 0))
	return w, err
}

func (w *recordWriter) addID(id string) error {
	w.ids++
	w.off += uint64(len(id))
	w.idBuf = append(w.idBuf[:0], id...)
	if _, err := w.files[idsFile].Write(w.idBuf); err != nil {
		return err
	}
	w.idBuf = binary.LittleEndian.AppendUint64(w.idBuf[:0], w.off)
	_, err := w.files[offsFile].Write(w.idBuf)
	return err
}

// addLengths adds the lengths of chunks (len(ls)/nf of them, chunk-major).
func (w *recordWriter) addLengths(ls []int32) error {
	w.lenBuf = w.lenBuf[:0]
	for _, l := range ls {
		w.lenBuf = binary.LittleEndian.AppendUint32(w.lenBuf, uint32(l))
	}
	if _, err := w.files[lengthsFile].Write(w.lenBuf); err != nil {
		return err
	}
	w.lenBuf = w.lenBuf[:0]
	for i, l := range ls {
		w.lenBuf = append(w.lenBuf, intToByte4(int(l)))
		if l > 0 {
			w.stats[i%w.nf].DocCount++
			w.stats[i%w.nf].SumLength += int64(l)
		}
	}
	w.lns += len(ls) / w.nf
	_, err := w.files[normsFile].Write(w.lenBuf)
	return err
}

// finish flushes and closes the files and fills md's count, statistics and
// file sums.
func (w *recordWriter) finish(md *meta) error {
	if w.ids != w.lns {
		w.abort()
		return fmt.Errorf("bm25: %d ids but %d lengths recorded", w.ids, w.lns)
	}
	md.Count, md.Stats, md.Files = w.ids, w.stats, map[string]fileSum{}
	var errs []error
	for _, name := range sideFileNames {
		s := w.files[name]
		errs = append(errs, s.w.Flush(), s.f.Close())
		md.Files[name] = fileSum{Size: s.n, CRC32: s.crc.Sum32()}
	}
	w.files = nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("bm25: %w", err)
	}
	return nil
}

// abort closes the files (the caller removes the folder).
func (w *recordWriter) abort() {
	for _, s := range w.files {
		s.f.Close()
	}
	w.files = nil
}

func writeMeta(dir string, md meta) error {
	data, err := json.Marshal(md)
	if err != nil {
		return fmt.Errorf("bm25: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, metaFile), data, 0o644); err != nil {
		return fmt.Errorf("bm25: %w", err)
	}
	return nil
}

// readMeta reads the record of the index folder dir and checks it against
// key (the folder's name is the key's prefix) and the side files' sizes and
// checksums. A missing meta file is fs.ErrNotExist.
func readMeta(dir, key string, nf int) (*meta, error) {
	data, err := os.ReadFile(filepath.Join(dir, metaFile))
	if err != nil {
		return nil, err
	}
	var md meta
	if err := json.Unmarshal(data, &md); err != nil {
		return nil, fmt.Errorf("bm25: %s: %w", filepath.Join(dir, metaFile), err)
	}
	if md.Format != formatVersion || md.Key != key {
		return nil, fmt.Errorf("bm25: %s: cached index does not match its name (format %d, key %.12s…); delete the folder",
			dir, md.Format, md.Key)
	}
	bad := func(file, what string) error {
		return fmt.Errorf("bm25: %s: %s; delete the folder %s", filepath.Join(dir, file), what, dir)
	}
	if len(md.Stats) != nf || md.Count <= 0 {
		return nil, bad(metaFile, fmt.Sprintf("%d field statistics for %d chunks, want %d fields", len(md.Stats), md.Count, nf))
	}
	want := map[string]int64{offsFile: 8 * int64(md.Count+1), lengthsFile: 4 * int64(nf*md.Count), normsFile: int64(nf * md.Count)}
	for _, name := range sideFileNames {
		sum, ok := md.Files[name]
		if !ok {
			return nil, bad(metaFile, "no record of "+name)
		}
		if w, ok := want[name]; ok && sum.Size != w {
			return nil, bad(name, fmt.Sprintf("recorded size %d, want %d", sum.Size, w))
		}
		got, err := fileCRC(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("bm25: %w", err)
		}
		if got != sum {
			return nil, bad(name, "size or checksum mismatch")
		}
	}
	return &md, nil
}

// fileCRC streams a file through CRC-32 (no copy of it on the heap).
func fileCRC(path string) (fileSum, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileSum{}, err
	}
	defer f.Close()
	h := crc32.NewIEEE()
	n, err := io.Copy(h, f)
	return fileSum{Size: n, CRC32: h.Sum32()}, err
}

// sideFiles are an index folder's side files, memory-mapped read-only.
type sideFiles struct {
	n, nf int
	maps  map[string]mmap.MMap
	ids   []byte
	offs  []byte
	lens  []byte
	norms []byte
}

// openSideFiles maps the side files of dir (already checked by readMeta).
func openSideFiles(dir string, md *meta, nf int) (*sideFiles, error) {
	s := &sideFiles{n: md.Count, nf: nf, maps: map[string]mmap.MMap{}}
	for _, name := range sideFileNames {
		if md.Files[name].Size == 0 {
			continue // mmap refuses empty files; all ids empty is impossible
		}
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			s.close()
			return nil, fmt.Errorf("bm25: %w", err)
		}
		m, err := mmap.Map(f, mmap.RDONLY, 0)
		f.Close() // the mapping stays valid
		if err != nil {
			s.close()
			return nil, fmt.Errorf("bm25: map %s: %w", filepath.Join(dir, name), err)
		}
		s.maps[name] = m
	}
	s.ids, s.offs, s.lens, s.norms = s.maps[idsFile], s.maps[offsFile], s.maps[lengthsFile], s.maps[normsFile]
	last := binary.LittleEndian.Uint64(s.offs[8*s.n:])
	if last != uint64(len(s.ids)) {
		s.close()
		return nil, fmt.Errorf("bm25: %s: offsets end at %d, ids.bin holds %d bytes; delete the folder", dir, last, len(s.ids))
	}
	for o := range s.n { // offsets never decrease (one pass over N uint64s)
		if binary.LittleEndian.Uint64(s.offs[8*o:]) > binary.LittleEndian.Uint64(s.offs[8*o+8:]) {
			s.close()
			return nil, fmt.Errorf("bm25: %s: ids.off decreases at chunk %d; delete the folder", dir, o)
		}
	}
	return s, nil
}

// id returns the id of chunk o without copying (callers must not modify it).
func (s *sideFiles) id(o int) []byte {
	return s.ids[binary.LittleEndian.Uint64(s.offs[8*o:]):binary.LittleEndian.Uint64(s.offs[8*o+8:])]
}

// length returns the token count of chunk o's field f.
func (s *sideFiles) length(o, f int) int32 {
	return int32(binary.LittleEndian.Uint32(s.lens[4*(o*s.nf+f):]))
}

func (s *sideFiles) close() error {
	var errs []error
	for _, m := range s.maps {
		errs = append(errs, m.Unmap())
	}
	s.maps = nil
	s.ids, s.offs, s.lens, s.norms = nil, nil, nil, nil
	return errors.Join(errs...)
}

// Duplicate ids are found without holding every id: each batch's ids are
// sorted (with their ordinals) and appended to a runs file as one run;
// after the build the runs are merged, reading each through a small
// buffer, and the first equal pair in id order is the error.

// runsWriter appends sorted runs of (id, ordinal) to a temporary file.
type runsWriter struct {
	f      *os.File
	w      *bufio.Writer
	starts []int64 // byte offset of each run, then the end
	n      int64
	buf    []byte
}

func newRunsWriter(path string) (*runsWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("bm25: %w", err)
	}
	return &runsWriter{f: f, w: bufio.NewWriterSize(f, 64<<10), starts: []int64{0}}, nil
}

// addRun appends the ids of one batch (first ordinal first) in the order
// ord (by id).
func (r *runsWriter) addRun(ids []string, first int, ord []int32) error {
	for _, i := range ord {
		r.buf = binary.AppendUvarint(r.buf[:0], uint64(len(ids[i])))
		r.buf = append(r.buf, ids[i]...)
		r.buf = binary.AppendUvarint(r.buf, uint64(first+int(i)))
		if _, err := r.w.Write(r.buf); err != nil {
			return fmt.Errorf("bm25: %w", err)
		}
		r.n += int64(len(r.buf))
	}
	r.starts = append(r.starts, r.n)
	return nil
}

// duplicate merges the runs and returns the first pair of equal ids in id
// order (ordinals i < j), or ok = false; it closes and removes the file.
func (r *runsWriter) duplicate() (id string, i, j int, ok bool, err error) {
	defer func() {
		r.f.Close()
		os.Remove(r.f.Name())
	}()
	if err := r.w.Flush(); err != nil {
		return "", 0, 0, false, fmt.Errorf("bm25: %w", err)
	}
	h := &runHeap{}
	for k := 0; k+1 < len(r.starts); k++ {
		c := &runCursor{rd: bufio.NewReaderSize(io.NewSectionReader(r.f, r.starts[k], r.starts[k+1]-r.starts[k]), 4096)}
		if more, err := c.next(); err != nil {
			return "", 0, 0, false, err
		} else if more {
			h.cs = append(h.cs, c)
		}
	}
	heap.Init(h)
	var prev []byte
	prevOrd, first := 0, true
	for h.Len() > 0 {
		c := h.cs[0]
		if !first && bytes.Equal(prev, c.id) {
			return string(prev), prevOrd, c.ord, true, nil
		}
		first = false
		prev, prevOrd = append(prev[:0], c.id...), c.ord
		if more, err := c.next(); err != nil {
			return "", 0, 0, false, err
		} else if more {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	return "", 0, 0, false, nil
}

type runCursor struct {
	rd  *bufio.Reader
	id  []byte
	ord int
}

func (c *runCursor) next() (bool, error) {
	n, err := binary.ReadUvarint(c.rd)
	if err == io.EOF {
		return false, nil
	}
	if err == nil {
		c.id = slices.Grow(c.id[:0], int(n))[:n]
		_, err = io.ReadFull(c.rd, c.id)
	}
	var o uint64
	if err == nil {
		o, err = binary.ReadUvarint(c.rd)
	}
	if err != nil {
		return false, fmt.Errorf("bm25: read id runs: %w", err)
	}
	c.ord = int(o)
	return true, nil
}

// runHeap orders cursors by (id, ordinal).
type runHeap struct{ cs []*runCursor }

func (h *runHeap) Len() int { return len(h.cs) }
func (h *runHeap) Less(a, b int) bool {
	if c := bytes.Compare(h.cs[a].id, h.cs[b].id); c != 0 {
		return c < 0
	}
	return h.cs[a].ord < h.cs[b].ord
}
func (h *runHeap) Swap(a, b int) { h.cs[a], h.cs[b] = h.cs[b], h.cs[a] }
func (h *runHeap) Push(x any)    { h.cs = append(h.cs, x.(*runCursor)) }
func (h *runHeap) Pop() any {
	c := h.cs[len(h.cs)-1]
	h.cs = h.cs[:len(h.cs)-1]
	return c
}
