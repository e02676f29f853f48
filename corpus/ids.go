package corpus

import (
	"hash/maphash"
	"math"
)

// IDIndex finds an entry of a list (documents, chunks) by its id: the
// position of the entry whose id(i) equals the id asked for. It is an
// open-addressing hash table of positions (uint32, linear probing, at most
// 3/4 full): 5 to 11 bytes per id, where a map[string]int of a million
// ids takes about 50 MB, and no pointers for the garbage collector to scan
// (issue 27: the run's memory grows with the corpus by what it holds per
// document). The ids stay in the list: the index reads them back through
// id to compare, so an entry's id must not change once added (appending
// to the list is fine). A nil *IDIndex is empty: Get finds nothing on it.
// Make one with NewIDIndex, IndexIDs or IndexDocs. Not safe for
// concurrent Add; Get is safe alongside other Gets.
type IDIndex struct {
	id    func(i int) string
	seed  maphash.Seed
	slots []uint32 // position + 1; 0 is an empty slot
	n     int
	// table, when set, gives the slot tables (zeroed) and takes back the
	// ones outgrown; nil (or a nil table returned) is the Go heap.
	table *slotTables
}

// slotTables hands out an IDIndex's slot tables from elsewhere than the
// Go heap (the spilled load's anonymous mappings, spiller.anon).
type slotTables struct {
	alloc func(n int) []uint32 // n zeroed slots, or nil
	free  func([]uint32)       // a table alloc returned, outgrown
}

// NewIDIndex is an empty index reading ids through id, with room for
// capacity ids before it grows (0: grow as needed).
func NewIDIndex(id func(i int) string, capacity int) *IDIndex {
	return newIDIndexIn(id, capacity, nil)
}

// newIDIndexIn is NewIDIndex with its slot tables from t (nil: the heap).
func newIDIndexIn(id func(i int) string, capacity int, t *slotTables) *IDIndex {
	x := &IDIndex{id: id, seed: maphash.MakeSeed(), table: t}
	x.slots = x.makeSlots(tableSize(capacity))
	return x
}

// makeSlots returns n zeroed slots, from x.table when it has them.
func (x *IDIndex) makeSlots(n int) []uint32 {
	if x.table != nil {
		if s := x.table.alloc(n); s != nil {
			return s
		}
	}
	return make([]uint32, n)
}

// IndexIDs is an index of the positions 0 … n-1 of a list whose i-th id is
// id(i); when an id repeats, Get finds its first position.
func IndexIDs(n int, id func(i int) string) *IDIndex {
	x := NewIDIndex(id, n)
	for i := range n {
		x.Add(i)
	}
	return x
}

// IndexDocs is IndexIDs over the documents' ids.
func IndexDocs(docs []Document) *IDIndex {
	return IndexIDs(len(docs), func(i int) string { return docs[i].ID })
}

// tableSize is the number of slots for n ids: a power of two at least
// 4n/3 (at least 8).
func tableSize(n int) int {
	size := 8
	for size*3 < n*4 {
		size *= 2
	}
	return size
}

// Add adds position i, whose id is id(i). When that id is already in the
// index, Add leaves the index as it is and returns the position it holds
// and true (the caller reports the duplicate); otherwise it returns i and
// false. Positions are below math.MaxUint32 (a list that long would not
// fit in memory); Add panics on a larger one, a programming error.
func (x *IDIndex) Add(i int) (first int, dup bool) {
	if i < 0 || i >= math.MaxUint32 {
		panic("corpus.IDIndex: position out of range")
	}
	if (x.n+1)*4 > len(x.slots)*3 {
		x.grow()
	}
	s := x.find(x.id(i))
	if p := x.slots[s]; p != 0 {
		return int(p - 1), true
	}
	x.slots[s] = uint32(i + 1)
	x.n++
	return i, false
}

// Get returns the position of id and whether it is in the index.
func (x *IDIndex) Get(id string) (int, bool) {
	if x == nil || x.n == 0 {
		return 0, false
	}
	p := x.slots[x.find(id)]
	return int(p) - 1, p != 0
}

// Len is the number of ids in the index.
func (x *IDIndex) Len() int {
	if x == nil {
		return 0
	}
	return x.n
}

// find returns the slot holding id, or the empty slot where it would go.
func (x *IDIndex) find(id string) int {
	mask := len(x.slots) - 1
	s := int(maphash.String(x.seed, id)) & mask
	for {
		p := x.slots[s]
		if p == 0 || x.id(int(p-1)) == id {
			return s
		}
		s = (s + 1) & mask
	}
}

// grow doubles the table and re-inserts every position.
func (x *IDIndex) grow() {
	old := x.slots
	x.slots = x.makeSlots(max(8, 2*len(old)))
	if x.table != nil {
		defer x.table.free(old) // one it gave, or a heap one it ignores
	}
	mask := len(x.slots) - 1
	for _, p := range old {
		if p == 0 {
			continue
		}
		s := int(maphash.String(x.seed, x.id(int(p-1)))) & mask
		for x.slots[s] != 0 {
			s = (s + 1) & mask
		}
		x.slots[s] = p
	}
}
