package encoder

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/ragbench/ragbench/internal/fileutil"
)

// The embedding cache's storage (issue 27): a few large append-only pack
// files per model instead of one file per text. A pack is two files in the
// model's folder:
//
//   - pack-N.rbe: entries one after the other, each in the entry format
//     (encodeEntry: magic, dimension, token ids, vector, CRC-32);
//   - pack-N.idx: fixed 48-byte records, one per entry: the key (32 bytes of
//     sha256), the entry's offset (uint64) and length (uint32) in pack-N.rbe,
//     and a CRC-32 of those 44 bytes (little endian).
//
// An entry is appended to the .rbe before its record to the .idx, so a
// record read whole and checked points to a complete entry (a crash between
// the two leaves an entry no record names; a torn record at the end is
// ignored, and cut off by the next writer). Each writer (a CachedEmbedder:
// one per process, as a rule) appends to one pack it holds an exclusive
// flock on, so processes sharing a folder never append to the same pack;
// readers need no lock. A pack stops growing at packLimit bytes.
const (
	packPrefix = "pack-"
	packData   = ".rbe"
	packIndex  = ".idx"
	recordSize = 48
	packLimit  = 1 << 30
)

var packName = regexp.MustCompile(`^pack-([0-9]+)\.idx$`)

// pack is one pack's files, open for reading (and, for the writer's own
// pack, appending).
type pack struct {
	n        int
	data     *os.File
	idx      *os.File
	idxRead  int64 // bytes of idx read into the key index (whole records)
	dataEnd  int64 // end of the last entry a record names
	writable bool  // data and idx are open read-write and data is flocked
}

// loc is where an entry is: its pack and byte range.
type loc struct {
	pack int32
	n    uint32
	off  int64
}

// store is a model folder's packs and the key index over them. Its methods
// are called with CachedEmbedder.mu held.
type store struct {
	dir   string
	packs map[int]*pack
	index map[[32]byte]loc
	own   *pack // the pack this store appends to; nil until the first write
}

func openStore(dir string) (*store, error) {
	s := &store{dir: dir, packs: map[int]*pack{}, index: map[[32]byte]loc{}}
	return s, s.refresh()
}

// refresh opens packs created since the last call and reads the records
// appended to every pack since then (by this or another process).
func (s *store) refresh() error {
	names, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	for _, e := range names {
		m := packName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if _, ok := s.packs[n]; ok {
			continue
		}
		p, err := s.openPack(n, false)
		if errors.Is(err, fs.ErrNotExist) {
			continue // being created by another process: next refresh
		}
		if err != nil {
			return err
		}
		s.packs[n] = p
	}
	for _, p := range s.packs {
		if err := s.readRecords(p); err != nil {
			return err
		}
	}
	return nil
}

func (s *store) path(n int, ext string) string {
	return filepath.Join(s.dir, packPrefix+strconv.Itoa(n)+ext)
}

// openPack opens pack n read-only, or read-write (creating its files) for
// a writer.
func (s *store) openPack(n int, write bool) (*pack, error) {
	flag := os.O_RDONLY
	if write {
		flag = os.O_RDWR | os.O_CREATE
	}
	data, err := os.OpenFile(s.path(n, packData), flag, 0o644)
	if err != nil {
		return nil, err
	}
	idx, err := os.OpenFile(s.path(n, packIndex), flag, 0o644)
	if err != nil {
		data.Close()
		return nil, err
	}
	return &pack{n: n, data: data, idx: idx, writable: write}, nil
}

// readRecords reads p's whole records after idxRead into the index; a
// record that fails its checksum ends the reading (what follows it is
// not trusted).
func (s *store) readRecords(p *pack) error {
	st, err := p.idx.Stat()
	if err != nil {
		return err
	}
	size := st.Size() - st.Size()%recordSize
	if size <= p.idxRead {
		return nil
	}
	buf := make([]byte, size-p.idxRead)
	if _, err := p.idx.ReadAt(buf, p.idxRead); err != nil && err != io.EOF {
		return err
	}
	for i := 0; i+recordSize <= len(buf); i += recordSize {
		r := buf[i : i+recordSize]
		if crc32.ChecksumIEEE(r[:44]) != binary.LittleEndian.Uint32(r[44:]) {
			return nil // torn or damaged: stop here
		}
		var key [32]byte
		copy(key[:], r)
		l := loc{pack: int32(p.n), off: int64(binary.LittleEndian.Uint64(r[32:])), n: binary.LittleEndian.Uint32(r[40:])}
		s.index[key] = l
		p.dataEnd = max(p.dataEnd, l.off+int64(l.n))
		p.idxRead += recordSize
	}
	return nil
}

// get returns the entry bytes of key, or fs.ErrNotExist.
func (s *store) get(key [32]byte) ([]byte, error) {
	l, ok := s.index[key]
	if !ok {
		return nil, fs.ErrNotExist
	}
	b := make([]byte, l.n)
	if _, err := s.packs[int(l.pack)].data.ReadAt(b, l.off); err != nil {
		return nil, fmt.Errorf("%s: entry at %d: %w", s.path(int(l.pack), packData), l.off, err)
	}
	return b, nil
}

// put appends entries (encoded) under keys to the store's own pack, data
// first, then the records.
func (s *store) put(keys [][32]byte, entries [][]byte) error {
	if err := s.ensureOwn(); err != nil {
		return fmt.Errorf("embedding cache: %w", err)
	}
	p := s.own
	var data []byte
	recs := make([]byte, 0, recordSize*len(keys))
	for i, e := range entries {
		off := p.dataEnd + int64(len(data))
		data = append(data, e...)
		r := append(make([]byte, 0, recordSize), keys[i][:]...)
		r = binary.LittleEndian.AppendUint64(r, uint64(off))
		r = binary.LittleEndian.AppendUint32(r, uint32(len(e)))
		r = binary.LittleEndian.AppendUint32(r, crc32.ChecksumIEEE(r))
		recs = append(recs, r...)
	}
	if _, err := p.data.WriteAt(data, p.dataEnd); err != nil {
		return fmt.Errorf("embedding cache: %w", err)
	}
	if _, err := p.idx.WriteAt(recs, p.idxRead); err != nil {
		return fmt.Errorf("embedding cache: %w", err)
	}
	off := p.dataEnd
	for i, e := range entries {
		s.index[keys[i]] = loc{pack: int32(p.n), off: off, n: uint32(len(e))}
		off += int64(len(e))
	}
	p.dataEnd, p.idxRead = off, p.idxRead+int64(len(recs))
	if p.dataEnd >= packLimit {
		s.own = nil // full: the next write takes another pack
		p.writable = false
	}
	return nil
}

// ensureOwn makes s.own a pack this store holds the flock of, with room:
// an existing pack no other writer holds, else a new one. Before the first
// append its files are cut to their last whole, checked record and the end
// of the entry it names (what a crash may have left after them).
func (s *store) ensureOwn() error {
	if s.own != nil {
		return nil
	}
	if err := s.refresh(); err != nil {
		return err
	}
	nums := make([]int, 0, len(s.packs))
	for n := range s.packs {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for _, n := range nums {
		if p := s.packs[n]; p.dataEnd < packLimit {
			if ok, err := s.take(n); ok || err != nil {
				return err
			}
		}
	}
	next := 0
	if len(nums) > 0 {
		next = nums[len(nums)-1] + 1
	}
	for ; ; next++ {
		// O_EXCL on the index file claims the number among processes.
		f, err := os.OpenFile(s.path(next, packIndex), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		f.Close()
		if ok, err := s.take(next); ok || err != nil {
			return err
		}
	}
}

// take opens pack n for appending if no other writer holds it.
func (s *store) take(n int) (bool, error) {
	p, err := s.openPack(n, true)
	if err != nil {
		return false, err
	}
	if err := fileutil.Flock(p.data, false); err != nil {
		p.data.Close()
		p.idx.Close()
		if errors.Is(err, fileutil.ErrLocked) {
			return false, nil
		}
		if !errors.Is(err, fileutil.ErrNoFlock) {
			return false, err
		}
	}
	if old := s.packs[n]; old != nil {
		p.idxRead, p.dataEnd = old.idxRead, old.dataEnd
		old.data.Close()
		old.idx.Close()
	}
	s.packs[n] = p
	if err := s.readRecords(p); err != nil {
		return false, err
	}
	if err := p.idx.Truncate(p.idxRead); err != nil {
		return false, err
	}
	if err := p.data.Truncate(p.dataEnd); err != nil {
		return false, err
	}
	s.own = p
	return true, nil
}

func (s *store) close() error {
	var errs []error
	for _, p := range s.packs {
		errs = append(errs, p.data.Close(), p.idx.Close())
	}
	s.packs, s.own = map[int]*pack{}, nil
	return errors.Join(errs...)
}
