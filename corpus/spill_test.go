package corpus

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/ragbench/ragbench/internal/testenv"
)

// loadBoth loads path through LoadIndexed (the heap arena, the reference)
// and through LoadSpilled into a fresh cache folder, and fails the test
// unless both return byte-identical documents, the same index and the
// same error. It returns the spilled load's texts (nil on an error).
func loadBoth(t *testing.T, path string) *Texts {
	t.Helper()
	want, wantByID, wantErr := LoadIndexed(path)
	cache := filepath.Join(t.TempDir(), "cache")
	got, gotByID, texts, gotErr := LoadSpilled(path, cache)
	if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
		t.Fatalf("%s: LoadSpilled error %v, LoadIndexed %v", path, gotErr, wantErr)
	}
	if wantErr != nil {
		return nil
	}
	if !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("%s: document %d: spilled %+q, heap %+q", path, i, got[i], want[i])
			}
		}
		t.Fatalf("%s: %d spilled documents, %d on the heap", path, len(got), len(want))
	}
	if gotByID.Len() != wantByID.Len() {
		t.Fatalf("%s: the index by id holds %d ids, the heap's %d", path, gotByID.Len(), wantByID.Len())
	}
	for i, d := range want {
		if j, ok := gotByID.Get(d.ID); !ok || j != i {
			t.Fatalf("%s: the index by id finds %q at %d (%v), want %d", path, d.ID, j, ok, i)
		}
	}
	if Hash(got) != Hash(want) {
		t.Fatalf("%s: hash differs", path)
	}
	if texts.Note() != "" {
		t.Fatalf("%s: unexpected fall-back: %s", path, texts.Note())
	}
	if _, err := os.Stat(cache); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s: the cache folder LoadSpilled created is left behind (%v)", path, err)
	}
	checkMapped(t, got, texts)
	return texts
}

// checkMapped fails unless every non-empty title and text of docs points
// into texts' mapping, one after the other in document order (where the
// platform spills).
func checkMapped(t *testing.T, docs []Document, texts *Texts) {
	t.Helper()
	if !canSpill {
		return
	}
	var next uintptr
	if texts.Spilled() {
		next = uintptr(unsafe.Pointer(unsafe.SliceData(texts.mem)))
	}
	for _, d := range docs {
		for _, s := range []string{d.Title, d.Text} {
			if s == "" {
				continue
			}
			if p := uintptr(unsafe.Pointer(unsafe.StringData(s))); !texts.Spilled() || p != next {
				t.Fatalf("document %q: %q is not at its place in the spill mapping", d.ID, s)
			}
			next += uintptr(len(s))
		}
	}
	if texts.Spilled() && next != uintptr(unsafe.Pointer(unsafe.SliceData(texts.mem)))+uintptr(len(texts.mem)) {
		t.Fatalf("the mapping holds %d bytes, the texts fewer", len(texts.mem))
	}
}

// TestLoadSpilledFormats: every format and every refused file of the load
// tests reads the same spilled as on the heap.
func TestLoadSpilledFormats(t *testing.T) {
	beir := `{"_id": "d1", "title": "T one", "text": "first text", "metadata": {}}
{"_id": "d2", "title": "", "text": ""}

{"_id": 7, "title": "Seven", "text": "ünïcödé 日本語"}
{"_id": "d8", "title": "esc \"q\" \u00e9", "text": "bad \xff byte"}
`
	tsv := "id\ttitle\ttext\nd1\tT one\tfirst text\r\nd2\t\t\n7\tSeven\tünïcödé 日本語\n"
	files := map[string]string{
		"corpus.jsonl":      beir,
		"corpus.jsonl.gz":   beir,
		"bom.jsonl":         "\ufeff" + strings.ReplaceAll(beir, "\n", "\r\n"),
		"docs.tsv":          tsv,
		"docs.tsv.gz":       tsv,
		"two.tsv":           "m1\tfirst passage\nm2\t\n",
		"empty-texts.jsonl": `{"_id":"a","text":""}` + "\n" + `{"_id":"b","text":""}`,
		"long.jsonl":        `{"_id":"a","text":"` + strings.Repeat("long text ", 200_000) + `"}`,
		"dup.jsonl":         `{"_id":"a","text":"x"}` + "\n" + `{"_id":"a","text":"z"}` + "\n",
		"badjson.jsonl":     `{"_id":"a","text":"x"}` + "\n" + `{"_id":"b",`,
		"empty.jsonl":       "\n\n",
		"x.csv":             "a,b,c\n",
	}
	for name, content := range files {
		t.Run(name, func(t *testing.T) { loadBoth(t, writeFile(t, name, content)) })
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A title\n\nsome text"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("plain text"), 0o644)
	t.Run("folder", func(t *testing.T) { loadBoth(t, dir) })
}

// TestLoadSpilledRepositoryCorpora: the repository's corpora (every
// corpus.jsonl and every corpus folder of its test data and examples)
// and the shared SciFact, Cranfield and chunking-evaluation corpora read
// the same spilled as on the heap.
func TestLoadSpilledRepositoryCorpora(t *testing.T) {
	var paths []string
	root := testenv.RepoRoot()
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != root || rel == "third_party" || rel == "models" || rel == "bin") {
			return filepath.SkipDir
		}
		if d.Name() == "corpus.jsonl" || d.IsDir() && (d.Name() == "corpus" || d.Name() == "corpora") {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) < 5 {
		t.Fatalf("found %d corpora in the repository, want the test data's and the examples'", len(paths))
	}
	for _, p := range paths {
		loadBoth(t, p)
	}
	for _, rel := range []string{"datasets/scifact/corpus.jsonl", "datasets/cranfield/corpus.jsonl", "datasets/chunking-chroma/corpora"} {
		texts := loadBoth(t, testenv.Shared(t, rel))
		if canSpill && !texts.Spilled() {
			t.Errorf("%s: not spilled", rel)
		}
	}
	t.Logf("%d corpora of the repository", len(paths))
}

// TestLoadSpilledLeavesNothing: the spill file is unlinked as soon as it
// is created: the cache folder holds nothing of it after the load (the
// folder itself, when it existed, is kept).
func TestLoadSpilledLeavesNothing(t *testing.T) {
	if !canSpill {
		t.Skip("no spill on this platform")
	}
	cache := t.TempDir()
	os.WriteFile(filepath.Join(cache, "keep"), []byte("a cache file"), 0o644)
	p := writeFile(t, "c.jsonl", `{"_id":"a","title":"t","text":"some text"}`)
	docs, _, texts, err := LoadSpilled(p, cache)
	if err != nil {
		t.Fatal(err)
	}
	if !texts.Spilled() || texts.Bytes() != len("t")+len("some text") {
		t.Fatalf("spilled %v, %d bytes; want the 10 bytes of title and text", texts.Spilled(), texts.Bytes())
	}
	ents, err := os.ReadDir(cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != "keep" {
		t.Errorf("cache folder after the load holds %v, want only keep", ents)
	}
	texts.Release()
	if docs[0].Title != "t" || docs[0].Text != "some text" {
		t.Errorf("after Release: %+v", docs[0])
	}
}

// TestLoadSpilledFallsBack: a spill that cannot be made — a cache folder
// that cannot be created (a file in its way) or written (read-only), a
// disk that fills up part-way — leaves the texts on the heap, with the
// same documents and a note naming the folder and the cause.
func TestLoadSpilledFallsBack(t *testing.T) {
	if !canSpill {
		t.Skip("no spill on this platform")
	}
	content := strings.Repeat(`{"_id":"a","title":"t","text":"some text"}`+"\n", 1) +
		`{"_id":"b","text":"` + strings.Repeat("x", 3<<20) + `"}` + "\n" + `{"_id":"c","text":"last"}`
	p := writeFile(t, "c.jsonl", content)
	want, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	readOnly := filepath.Join(t.TempDir(), "ro")
	os.Mkdir(readOnly, 0o555)
	cases := []struct{ name, dir, cause string }{
		{"file in the way", filepath.Join(file, "cache"), "not a directory"},
		{"read-only folder", readOnly, "permission denied"},
		{"disk full", t.TempDir(), "no space left"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "read-only folder" {
				if f, err := os.CreateTemp(readOnly, "probe"); err == nil {
					f.Close()
					os.Remove(f.Name())
					t.Skip("the folder is writable all the same (root)")
				}
			}
			if tc.name == "disk full" {
				spillWriter = func(w io.Writer) io.Writer { return &fullDisk{w: w, left: 1 << 20} }
				defer func() { spillWriter = nil }()
			}
			got, byID, texts, err := LoadSpilled(p, tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) || byID.Len() != len(want) {
				t.Fatal("documents differ from Load's")
			}
			if texts.Spilled() {
				t.Fatal("spilled, want the heap")
			}
			if n := texts.Note(); !strings.Contains(n, "corpus texts: held on the Go heap") || !strings.Contains(n, tc.dir) || !strings.Contains(n, tc.cause) {
				t.Errorf("note %q, want the heap, %s and %q", n, tc.dir, tc.cause)
			}
			if ents, _ := os.ReadDir(tc.dir); len(ents) != 0 {
				t.Errorf("%s holds %v after the fall-back", tc.dir, ents)
			}
			texts.Release() // nothing to do on the heap
		})
	}
	if _, _, texts, err := LoadSpilled(p, ""); err != nil || texts.Spilled() || texts.Note() != "" {
		t.Errorf("no folder: spilled %v, note %q, err %v; want the heap without a note", texts.Spilled(), texts.Note(), err)
	}
}

// fullDisk is a writer that fails as a full disk does after left bytes.
type fullDisk struct {
	w    io.Writer
	left int
}

func (f *fullDisk) Write(b []byte) (int, error) {
	if len(b) > f.left {
		n, _ := f.w.Write(b[:f.left])
		f.left = 0
		return n, errors.New("write: no space left on device")
	}
	f.left -= len(b)
	return f.w.Write(b)
}

// FuzzLoadSpilled: any file (JSONL, or TSV when tsv is set) reads the same
// through LoadSpilled as through LoadIndexed: the same documents, byte
// for byte, or the same error. The seeds are the fast path's cases, one
// file each and all in one.
func FuzzLoadSpilled(f *testing.F) {
	for _, c := range fastCases {
		f.Add([]byte(c), false)
	}
	f.Add([]byte(strings.Join(fastCases[:5], "\n")), false)
	f.Add([]byte("id\ttitle\ttext\nd1\tT\tx\r\nd2\t\t\n"), true)
	f.Add([]byte("m1\tfirst\nm2\t\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, tsv bool) {
		name := "c.jsonl"
		if tsv {
			name = "c.tsv"
		}
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		loadBoth(t, p)
	})
}

// TestLoadSpilledOffHeap: a spilled JSONL or TSV corpus's documents table
// and ids are outside the Go heap (spiller.anon); a table that outgrows
// its reservation (a compressed corpus: no estimate) is copied to a larger
// one, ids of every path (fast, escaped, numeric, one longer than an arena
// block's eighth, TSV) are the arena's, and everything reads the same
// after collections that would have freed a heap string the table alone
// pointed to.
func TestLoadSpilledOffHeap(t *testing.T) {
	var jb, tb strings.Builder
	for i := range 5000 {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&jb, `{"_id": "d%d", "title": "t%d", "text": "text of %d"}`+"\n", i, i, i)
		case 1:
			fmt.Fprintf(&jb, `{"_id": "d\u0031-%d", "text": "esc\"aped %d"}`+"\n", i, i)
		case 2:
			fmt.Fprintf(&jb, `{"_id": %d, "title": "", "text": "numeric %d"}`+"\n", i, i)
		default:
			fmt.Fprintf(&jb, `{"_id": "d%d", "text": ""}`+"\n", i)
		}
		fmt.Fprintf(&tb, "t%d\ttitle %d\ttext %d\n", i, i, i)
	}
	fmt.Fprintf(&jb, `{"_id": "%s", "text": "the long id's"}`+"\n", strings.Repeat("x", arenaBlock/4))
	for _, name := range []string{"corpus.jsonl", "corpus.jsonl.gz", "docs.tsv", "docs.tsv.gz"} {
		t.Run(name, func(t *testing.T) {
			content := jb.String()
			if strings.Contains(name, ".tsv") {
				content = tb.String()
			}
			path := writeFile(t, name, content)
			want, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			before := liveHeap()
			got, byID, texts, err := LoadSpilled(path, t.TempDir())
			if err != nil || texts.Note() != "" {
				t.Fatalf("LoadSpilled: %v %s", err, texts.Note())
			}
			// On the heap the table alone is 48 bytes a document and the
			// index by id 5 to 11; off it, the live heap holds next to
			// nothing per document.
			if grown := int64(liveHeap()) - int64(before); canSpill && grown > int64(len(got))*4 {
				t.Errorf("the live heap grew by %d bytes for %d documents: the table is on it", grown, len(got))
			}
			if canSpill && cap(got) != len(got) {
				t.Errorf("the table has room for %d documents more", cap(got)-len(got))
			}
			for range 3 {
				_ = make([]byte, 64<<20) // garbage, reusing whatever a collection freed
				runtime.GC()
			}
			if !slices.Equal(got, want) {
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Fatalf("document %d: spilled %+q, heap %+q", i, got[i], want[i])
					}
				}
				t.Fatalf("%d spilled documents, %d on the heap", len(got), len(want))
			}
			for i, d := range want {
				if j, ok := byID.Get(d.ID); !ok || j != i {
					t.Fatalf("%q found at %d (%v), want %d", d.ID, j, ok, i)
				}
			}
		})
	}
}

// liveHeap is the live heap after a collection.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
