package dense

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"
	"strings"
	"time"

	chromem "github.com/philippgille/chromem-go"

	"github.com/ragbench/ragbench/internal/fileutil"
)

// File formats. Every index file starts with a magic and a JSON header line.
// v2 (written by Save): then, per document in row order, uvarint(len(id)),
// the id's bytes and dim little-endian float32s; then the CRC-32 (IEEE,
// little endian) of every byte after the header line. v1 (read only):
// chromem's Export stream (gob, gzip) after the header line.
const (
	fileMagic   = "ragbench-dense v2 "
	fileMagicV1 = "ragbench-dense v1 "
	// maxIDLen bounds an id read from a file, so a damaged length cannot
	// ask for gigabytes.
	maxIDLen = 1 << 20
)

// header is the JSON line before the documents in a saved index.
type header struct {
	Model string `json:"model"`
	Dim   int    `json:"dim"`
	Count int    `json:"count"`
}

// Save writes the index to one file at path, atomically (a temporary file in
// the same folder is written, synced and renamed over path), streaming the
// vectors row by row: memory beyond the index is one buffer, whatever its
// size. The layout (format v2) is a header line ("ragbench-dense v2 " +
// JSON of model, dimension, count), then each document's id and normalised
// vector, then a CRC-32 of them.
func (r *Retriever) Save(path string) error {
	h, err := json.Marshal(header{Model: r.opts.Model, Dim: r.dim, Count: r.n})
	if err != nil {
		return fmt.Errorf("dense: save: %s: %w", path, err)
	}
	err = fileutil.WriteStream(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if _, err := fmt.Fprintf(bw, "%s%s\n", fileMagic, h); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		crc := crc32.NewIEEE()
		body := io.MultiWriter(bw, crc)
		buf := make([]byte, 0, binary.MaxVarintLen64+4*r.dim+256)
		for i, id := range r.ids {
			buf = binary.AppendUvarint(buf[:0], uint64(len(id)))
			buf = append(buf, id...)
			for _, x := range r.mat[i*r.dim : (i+1)*r.dim] {
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
			}
			if _, err := body.Write(buf); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		if err := binary.Write(bw, binary.LittleEndian, crc.Sum32()); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("dense: save: %w", err)
	}
	return nil
}

// Load reads an index written by Save (format v2, streamed into one
// preallocated vector array, or v1, chromem's gob export, decoded whole as
// before); embed is used for queries only, and opts.BatchSize for query
// batches. Errors: unreadable file or not written by Save; opts.Model and
// the saved model both non-empty and different; a file whose documents,
// dimensions or checksum disagree with its header (each naming the file).
func Load(ctx context.Context, path string, embed EmbedFunc, opts Options) (*Retriever, error) {
	start := time.Now()
	o, err := opts.withEmbed(embed)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dense: load: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	line, err := br.ReadString('\n')
	magic := fileMagic
	if strings.HasPrefix(line, fileMagicV1) {
		magic = fileMagicV1
	}
	if err != nil || !strings.HasPrefix(line, magic) {
		return nil, fmt.Errorf("dense: load %s:1: not a ragbench dense index (want a %q header)", path, strings.TrimSpace(fileMagic))
	}
	var h header
	if err := json.Unmarshal([]byte(line[len(magic):]), &h); err != nil {
		return nil, fmt.Errorf("dense: load %s:1: header: %w", path, err)
	}
	if h.Dim <= 0 || h.Count <= 0 {
		return nil, fmt.Errorf("dense: load %s:1: header: dim %d, count %d (want both > 0)", path, h.Dim, h.Count)
	}
	if o.Model != "" && h.Model != "" && o.Model != h.Model {
		return nil, fmt.Errorf("dense: load %s: index built with model %q, not %q", path, h.Model, o.Model)
	}
	if o.Model == "" {
		o.Model = h.Model
	}
	var ids []string
	var mat []float32
	if magic == fileMagicV1 {
		ids, mat, err = readV1(ctx, f, int64(len(line)), h)
	} else if st, serr := f.Stat(); serr == nil && int64(h.Count) > st.Size()/int64(4*h.Dim+1) {
		err = fmt.Errorf("header announces %d vectors of dimension %d, more than the file's %d bytes hold", h.Count, h.Dim, st.Size())
	} else {
		ids, mat, err = readV2(br, h)
	}
	if err != nil {
		return nil, fmt.Errorf("dense: load %s: %w", path, err)
	}
	r, err := fromRows(ctx, ids, mat, h.Dim, embed, o)
	if err != nil {
		return nil, fmt.Errorf("dense: load %s: %w", path, err)
	}
	r.build = time.Since(start)
	return r, nil
}

// readV2 reads the documents of a v2 file after its header line.
func readV2(br *bufio.Reader, h header) ([]string, []float32, error) {
	cr := &crcReader{r: br, crc: crc32.NewIEEE()}
	// Allocated once from the header's count (Load checked that the file
	// is large enough to hold that many vectors): no growth, no copy.
	ids := make([]string, 0, h.Count)
	mat := make([]float32, 0, h.Count*h.Dim)
	vec := make([]byte, 4*h.Dim)
	var id []byte
	for i := range h.Count {
		n, err := binary.ReadUvarint(cr)
		if err != nil || n > maxIDLen {
			return nil, nil, fmt.Errorf("document %d of %d: bad id length (truncated or damaged file)", i, h.Count)
		}
		if uint64(cap(id)) < n {
			id = make([]byte, n)
		}
		id = id[:n]
		if _, err := io.ReadFull(cr, id); err != nil {
			return nil, nil, fmt.Errorf("document %d of %d: %w (truncated file)", i, h.Count, err)
		}
		if _, err := io.ReadFull(cr, vec); err != nil {
			return nil, nil, fmt.Errorf("document %d of %d (%q): %w (truncated file)", i, h.Count, id, err)
		}
		ids = append(ids, string(id))
		for j := range h.Dim {
			mat = append(mat, math.Float32frombits(binary.LittleEndian.Uint32(vec[4*j:])))
		}
	}
	var trailer [4]byte
	if _, err := io.ReadFull(br, trailer[:]); err != nil {
		return nil, nil, errors.New("no checksum after the documents (truncated file)")
	}
	if binary.LittleEndian.Uint32(trailer[:]) != cr.crc.Sum32() {
		return nil, nil, errors.New("checksum mismatch (damaged file)")
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, nil, fmt.Errorf("data after the %d documents the header announces", h.Count)
	}
	return ids, mat, nil
}

// crcReader reads from r and adds every byte read to crc.
type crcReader struct {
	r   *bufio.Reader
	crc hash.Hash32
}

func (c *crcReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.crc.Write(p[:n])
	return n, err
}

func (c *crcReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.crc.Write([]byte{b})
	}
	return b, err
}

// readV1 reads a v1 file (chromem's Export after the header line at
// offset off): the whole collection is decoded by chromem, as v1 files
// always were, then copied into rows in chromem's similarity order to a
// probe vector (the order of rows changes no result).
func readV1(ctx context.Context, f *os.File, off int64, h header) ([]string, []float32, error) {
	db := chromem.NewDB()
	body := io.NewSectionReader(f, off, math.MaxInt64-off)
	if err := db.ImportFromReader(body, "", collectionName); err != nil {
		return nil, nil, err
	}
	coll := db.GetCollection(collectionName, refuseEmbedding)
	if coll == nil {
		return nil, nil, fmt.Errorf("no %q collection", collectionName)
	}
	if n := coll.Count(); n != h.Count {
		return nil, nil, fmt.Errorf("%d vectors, header says %d", n, h.Count)
	}
	probe := make([]float32, h.Dim)
	probe[0] = 1
	all, err := coll.QueryEmbedding(ctx, probe, h.Count, nil, nil)
	if err != nil {
		return nil, nil, err // chromem fails on a vector of another dimension
	}
	ids := make([]string, 0, len(all))
	mat := make([]float32, 0, len(all)*h.Dim)
	for _, d := range all {
		if len(d.Embedding) != h.Dim {
			return nil, nil, fmt.Errorf("document %q: dimension %d, header says %d", d.ID, len(d.Embedding), h.Dim)
		}
		ids = append(ids, d.ID)
		mat = append(mat, d.Embedding...)
	}
	return ids, mat, nil
}
