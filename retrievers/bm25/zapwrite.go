package bm25

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/vellum"
	zap "github.com/blevesearch/zapx/v17"
	"github.com/golang/snappy"
)

// A zap segment written by ragbench (issue 27). zap's own segment builder
// (ZapPlugin.New) inverts documents it is handed one by one, through Go
// maps of terms and a roaring bitmap per term, and was 60 % of a build's
// CPU; ragbench has already counted every term of every chunk (segWorker),
// so it inverts the batch with two passes over flat arrays and writes the
// segment file itself, in zap's file format (version zap.Version, chunk
// mode zap.DefaultChunkMode; zap.md in the zapx module describes it), for
// bleve's zap reader to open and search. What is written is what zap's
// builder writes for the same documents — the same fields, options, terms,
// postings, frequencies, norms (zap's norm of a posting is its field's
// token count) and stored _id — which TestSegmentMatchesZap checks through
// zap's reader, posting by posting, against a segment zap built itself.
// Only the layout of the bytes may differ (zap's own order of sections
// follows a Go map).
//
// The file, in order: the stored fields (per document its _id, as zap
// stores it: metadata and the id followed by a snappy-compressed empty
// remainder), the stored-fields index and an empty nested-document edge
// list; then per field (_id first, then the text fields by name) the
// postings of each term in byte order — chunked frequency/norm varints and
// a record (frequency offset, no locations, roaring bitmap of document
// numbers) — the term dictionary (a vellum FST, term → record offset) and
// the field's section entry (no doc values, the dictionary's offset); then
// the fields section and its index, and the footer (no writer id, document
// count, the two index offsets, chunk mode, version, CRC-32 of everything
// before it).

// vellumOpts are the FST builder options zap uses (vellum_opts.go).
var vellumOpts = &vellum.BuilderOpts{Encoder: 1, RegistryTableSize: 0, RegistryMRUSize: 1}

// snappyEmpty is snappy's encoding of no bytes: what zap stores after the
// id of a document with no other stored field.
var snappyEmpty = snappy.Encode(nil, nil)

// noDocValues is zap's offset for "this field has no doc values".
const noDocValues = math.MaxUint64

// segInput is an analysed batch as the writer needs it.
type segInput struct {
	ids     []string
	order   []int32 // documents by id (ids unique)
	names   []string
	kinds   []fieldKind
	terms   []string // the segment's vocabulary by term number
	pairs   []uint64 // (term number << 32 | frequency), per document and field
	off     []int    // pairs of document d's field f: off[d·F+f] … off[d·F+f+1]
	lengths []int32  // tokens per document and field
}

// zapScratch is a worker's reusable buffers for writing segments.
type zapScratch struct {
	cnt, pos  []uint32 // per term number
	present   []uint32 // term numbers of a field, then sorted by term
	pdocs     []uint32 // postings, grouped by term
	ptfs      []uint32
	chunk     []byte
	chunkLens []uint64
	key       []byte
	fst       bytes.Buffer
	builder   *vellum.Builder
	bm        *roaring.Bitmap
}

// zapFile is the segment file being written: buffered, counted, checksummed.
type zapFile struct {
	f   *os.File
	w   *bufio.Writer
	crc hash.Hash32
	n   uint64
	err error
	tmp [binary.MaxVarintLen64]byte
}

func (z *zapFile) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	z.crc.Write(p)
	z.n += uint64(len(p))
	_, z.err = z.w.Write(p)
	return len(p), z.err
}

func (z *zapFile) uvarint(v uint64) { z.Write(z.tmp[:binary.PutUvarint(z.tmp[:], v)]) }
func (z *zapFile) u16(v uint16)     { z.Write(binary.BigEndian.AppendUint16(z.tmp[:0], v)) }
func (z *zapFile) u32(v uint32)     { z.Write(binary.BigEndian.AppendUint32(z.tmp[:0], v)) }
func (z *zapFile) u64(v uint64)     { z.Write(binary.BigEndian.AppendUint64(z.tmp[:0], v)) }

// writeSegment writes in's segment to path (a new file, synced).
func writeSegment(path string, in *segInput, s *zapScratch) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	z := &zapFile{f: f, w: bufio.NewWriterSize(f, 256<<10), crc: crc32.NewIEEE()}
	err = z.segment(in, s)
	if err == nil {
		err = z.w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

func (z *zapFile) segment(in *segInput, s *zapScratch) error {
	n := len(in.ids)
	// Stored fields: _id only.
	stored := make([]uint64, n)
	for d, id := range in.ids {
		stored[d] = z.n
		meta := binary.PutUvarint(z.tmp[:], uint64(len(id)))
		z.uvarint(uint64(meta))
		z.uvarint(uint64(len(id) + len(snappyEmpty)))
		z.uvarint(uint64(len(id)))
		z.Write(s.keyOf(id))
		z.Write(snappyEmpty)
	}
	storedIndex := z.n
	for _, o := range stored {
		z.u64(o)
	}
	z.uvarint(0) // no nested documents

	// Fields: _id first, then the text fields by name (zap's field order).
	type zf struct {
		name string
		opts uint64
		f    int // text field number, -1 for _id
		addr uint64
	}
	fields := []zf{{name: "_id", opts: uint64(idOptions), f: -1}}
	for f, name := range in.names {
		fields = append(fields, zf{name: name, opts: uint64(in.kinds[f].opts), f: f})
	}
	slices.SortFunc(fields[1:], func(a, b zf) int { return strings.Compare(a.name, b.name) })
	for i := range fields {
		var err error
		if fields[i].f < 0 {
			fields[i].addr, err = z.idField(in, s)
		} else {
			fields[i].addr, err = z.textField(in, fields[i].f, s)
		}
		if err != nil {
			return err
		}
	}
	offsets := make([]uint64, len(fields))
	for i, fd := range fields {
		offsets[i] = z.n
		z.uvarint(uint64(len(fd.name)))
		z.Write(s.keyOf(fd.name))
		z.uvarint(fd.opts)
		z.uvarint(1) // one section: the inverted text index
		z.u16(zap.SectionInvertedTextIndex)
		z.u64(fd.addr)
	}
	sectionsIndex := z.n
	z.uvarint(uint64(len(fields)))
	for _, o := range offsets {
		z.u64(o)
	}
	// Footer: writer id (none) and its length, then the rest; the CRC
	// covers every byte before it.
	z.u32(0)
	z.u64(uint64(n))
	z.u64(storedIndex)
	z.u64(sectionsIndex)
	z.u32(zap.DefaultChunkMode)
	z.u32(zap.Version)
	if z.err != nil {
		return z.err
	}
	_, err := z.w.Write(binary.BigEndian.AppendUint32(nil, z.crc.Sum32()))
	return err
}

// idOptions are the _id field's options (bleve's AddIDField).
const idOptions = 1<<0 | 1<<1 // index.IndexField | index.StoreField

func (s *zapScratch) keyOf(t string) []byte {
	s.key = append(s.key[:0], t...)
	return s.key
}

// idField writes the _id field: one term per document (its id, frequency
// 1, norm 1), and returns its section address.
func (z *zapFile) idField(in *segInput, s *zapScratch) (uint64, error) {
	if err := s.startDict(); err != nil {
		return 0, err
	}
	n := uint64(len(in.ids))
	for _, d := range in.order {
		s.pdocs = append(s.pdocs[:0], uint32(d))
		s.ptfs = append(s.ptfs[:0], 1)
		off := z.postings(s.pdocs, s.ptfs, func(uint32) uint64 { return 1 }, n, s)
		if err := s.builder.Insert(s.keyOf(in.ids[d]), off); err != nil {
			return 0, fmt.Errorf("bm25: segment dictionary: %w", err)
		}
	}
	return z.endDict(s)
}

// textField inverts and writes text field f and returns its section
// address.
func (z *zapFile) textField(in *segInput, f int, s *zapScratch) (uint64, error) {
	nf := len(in.names)
	n := len(in.ids)
	nt := len(in.terms)
	s.cnt = resize(s.cnt, nt)
	s.pos = resize(s.pos, nt)
	clear(s.cnt)
	total := 0
	for d := range n {
		for _, p := range in.pairs[in.off[d*nf+f]:in.off[d*nf+f+1]] {
			s.cnt[p>>32]++
			total++
		}
	}
	s.present = s.present[:0]
	for t, c := range s.cnt {
		if c > 0 {
			s.present = append(s.present, uint32(t))
		}
	}
	slices.SortFunc(s.present, func(a, b uint32) int { return strings.Compare(in.terms[a], in.terms[b]) })
	// Postings grouped by term in sorted-term order, each group in
	// document order.
	at := uint32(0)
	for _, t := range s.present {
		s.pos[t] = at
		at += s.cnt[t]
	}
	s.pdocs = resize(s.pdocs, total)
	s.ptfs = resize(s.ptfs, total)
	for d := range n {
		for _, p := range in.pairs[in.off[d*nf+f]:in.off[d*nf+f+1]] {
			t := p >> 32
			s.pdocs[s.pos[t]] = uint32(d)
			s.ptfs[s.pos[t]] = uint32(p)
			s.pos[t]++
		}
	}
	if err := s.startDict(); err != nil {
		return 0, err
	}
	norm := func(d uint32) uint64 { return uint64(uint32(in.lengths[int(d)*nf+f])) }
	at = 0
	for _, t := range s.present {
		c := s.cnt[t]
		off := z.postings(s.pdocs[at:at+c], s.ptfs[at:at+c], norm, uint64(n), s)
		at += c
		if err := s.builder.Insert(s.keyOf(in.terms[t]), off); err != nil {
			return 0, fmt.Errorf("bm25: segment dictionary: %w", err)
		}
	}
	return z.endDict(s)
}

func resize(b []uint32, n int) []uint32 {
	if cap(b) < n {
		return make([]uint32, n, n+n/4)
	}
	return b[:n]
}

func (s *zapScratch) startDict() error {
	s.fst.Reset()
	if s.builder == nil {
		b, err := vellum.New(&s.fst, vellumOpts)
		if err != nil {
			return fmt.Errorf("bm25: %w", err)
		}
		s.builder = b
		return nil
	}
	return s.builder.Reset(&s.fst)
}

// endDict writes the field's dictionary and section entry and returns the
// entry's address.
func (z *zapFile) endDict(s *zapScratch) (uint64, error) {
	if err := s.builder.Close(); err != nil {
		return 0, fmt.Errorf("bm25: segment dictionary: %w", err)
	}
	dict := z.n
	z.uvarint(uint64(s.fst.Len()))
	z.Write(s.fst.Bytes())
	addr := z.n
	z.uvarint(noDocValues)
	z.uvarint(noDocValues)
	z.uvarint(dict)
	return addr, z.err
}

// postings writes one term's postings (documents in increasing order,
// their frequencies, norm(document)) in a segment of n documents: the
// frequency/norm chunks, then the record the dictionary points at, whose
// offset it returns.
func (z *zapFile) postings(docs, tfs []uint32, norm func(uint32) uint64, n uint64, s *zapScratch) uint64 {
	card := uint64(len(docs))
	// zap's chunk mode 1026: the fewest chunks of at most 1,024 postings
	// each, as document-number ranges of equal width.
	chunkSize := n / (card/1024 + 1)
	chunks := (n-1)/chunkSize + 1
	if cap(s.chunkLens) < int(chunks) {
		s.chunkLens = make([]uint64, chunks)
	}
	lens := s.chunkLens[:chunks]
	clear(lens)
	s.chunk = s.chunk[:0]
	for i, d := range docs {
		before := len(s.chunk)
		s.chunk = binary.AppendUvarint(s.chunk, uint64(tfs[i])<<1) // no locations
		s.chunk = binary.AppendUvarint(s.chunk, norm(d))
		lens[uint64(d)/chunkSize] += uint64(len(s.chunk) - before)
	}
	freqAt := z.n
	z.uvarint(chunks)
	end := uint64(0)
	for _, l := range lens {
		end += l
		z.uvarint(end)
	}
	z.Write(s.chunk)

	if s.bm == nil {
		s.bm = roaring.New()
	}
	s.bm.Clear()
	s.bm.AddMany(docs)
	at := z.n
	z.uvarint(freqAt)
	z.uvarint(0) // no locations
	z.uvarint(s.bm.GetSerializedSizeInBytes())
	if z.err == nil {
		_, err := s.bm.WriteTo(z)
		if err != nil && z.err == nil {
			z.err = err
		}
	}
	return at
}
