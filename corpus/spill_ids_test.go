package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// TestLoadSpilledNoHeapPointer loads quirky corpora through the spilled
// path and checks the invariant that makes the off-heap table safe: the
// table itself and every id lie in the spiller's anonymous mappings, and
// every title and text in the spill mapping (none in the Go heap, where
// the collector would not see the table's reference). Then it churns the
// heap under frequent collections and compares with the heap load.
func TestLoadSpilledNoHeapPointer(t *testing.T) {
	if !canSpill {
		t.Skip("no spill on this platform")
	}
	long := strings.Repeat("L", arenaBlock/8+1)
	huge := strings.Repeat("H", arenaBlock+7)
	var many strings.Builder
	for i := range 3000 { // outgrows the gz estimate (1024): anonAppend copies
		fmt.Fprintf(&many, "{\"_id\": \"m%d\", \"title\": \"T%d\", \"text\": \"x\\ty %d\"}\r\n", i, i, i)
	}
	cases := map[string]string{
		"bom-crlf.jsonl": "\ufeff{\"_id\": \"a\", \"title\": \"t\", \"text\": \"x\"}\r\n{\"_id\": \"b\", \"text\": \"y\"}\r\n",
		"slow.jsonl": `{"_id": "é1", "title": null, "text": "non-ascii id"}` + "\n" +
			`{"id": "plain", "text": "id key"}` + "\n" +
			`{"_id": "same", "id": "same", "text": "both"}` + "\n" +
			`{"_id": "d\u0032", "text": "escaped id"}` + "\n" +
			`{"_id": 42, "text": "numeric"}` + "\n" +
			`{"_id": 4.5e1, "text": "number"}` + "\n" +
			`{"_id": "t-only", "title": "only a title", "text": ""}` + "\n" +
			`{"_id": "esc", "title": "a\nb", "text": "c\u00e9"}` + "\n" +
			`{"_id": "` + long + `", "text": "long id"}` + "\n" +
			`{"_id": "` + huge + `", "text": "huge id"}` + "\n" +
			`{"_id": "日本語", "meta": {"k": [1, 2]}, "text": "cjk"}` + "\n",
		"empty.jsonl":   `{"_id": "e1", "text": ""}` + "\n" + `{"_id": "e2", "title": "", "text": ""}` + "\n",
		"many.jsonl.gz": many.String(),
		"three.tsv":     "\ufeffid\ttitle\ttext\r\nx1\tT\tbody\r\ny2\t\t\r\nz3\tonly title\t\r\nü4\t\tnon-ascii\r\n" + long + "\tT\tlong\n",
		"two.tsv.gz":    "docid\ttext\nq1\tone\nq2\t\nq3\tthree\r\n",
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, name, content)
			want, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			sp, err := newSpiller(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			got, byID, err := load(path, sp)
			if err != nil {
				t.Fatal(err)
			}
			texts, err := sp.finish(got)
			if err != nil {
				t.Fatal(err)
			}
			in := func(p unsafe.Pointer, n int) bool {
				for _, m := range sp.maps {
					lo := uintptr(unsafe.Pointer(&m[0]))
					if uintptr(p) >= lo && uintptr(p)+uintptr(n) <= lo+uintptr(len(m)) {
						return true
					}
				}
				return false
			}
			if !in(unsafe.Pointer(unsafe.SliceData(got)), len(got)*int(unsafe.Sizeof(Document{}))) {
				t.Fatalf("the table is not in the spiller's mappings")
			}
			for _, d := range got {
				if !in(unsafe.Pointer(unsafe.StringData(d.ID)), len(d.ID)) {
					t.Fatalf("id %.40q is not in the spiller's mappings", d.ID)
				}
			}
			checkMapped(t, got, texts)
			for range 5 {
				junk := make([][]byte, 0, 1024)
				for range 1024 {
					junk = append(junk, []byte(strings.Repeat("Z", 200)))
				}
				runtime.GC()
				_ = junk
			}
			if !slices.Equal(got, want) {
				t.Fatalf("spilled %+.60q\nheap %+.60q", got, want)
			}
			for i, d := range want {
				if j, ok := byID.Get(d.ID); !ok || j != i {
					t.Fatalf("%.40q found at %d (%v), want %d", d.ID, j, ok, i)
				}
			}
		})
	}
}

// TestLoadSpilledFailsLate: a corpus refused late (a duplicate id, a
// TSV line of another width, a long line, a truncated gzip), after the
// spilled load's table, ids, index and lists outgrew their first
// mappings, fails as the heap load does, and the mappings it unmapped
// are not read afterwards (the test runs under checkptr and GOGC=1 in
// the break-it runs).
func TestLoadSpilledFailsLate(t *testing.T) {
	var b strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&b, "{\"_id\": \"d%d\", \"title\": \"T\", \"text\": \"text %d\"}\n", i, i)
	}
	body := b.String()
	full := writeFile(t, "full.jsonl.gz", body)
	raw, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	trunc := filepath.Join(t.TempDir(), "trunc.jsonl.gz")
	if err := os.WriteFile(trunc, raw[:len(raw)*3/4], 0o644); err != nil {
		t.Fatal(err)
	}
	var tsv strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&tsv, "t%d\ttitle\ttext %d\n", i, i)
	}
	for _, path := range []string{
		writeFile(t, "dup.jsonl.gz", body+`{"_id": "d3999", "text": "again"}`+"\n"),
		writeFile(t, "dupfirst.jsonl", body+`{"_id": "d0", "text": "again"}`+"\n"),
		writeFile(t, "width.tsv.gz", tsv.String()+"x\tonly two\n"),
		writeFile(t, "long.jsonl.gz", body+`{"_id": "big", "text": "`+strings.Repeat("y", maxLine)+`"}`+"\n"),
		trunc,
	} {
		loadBoth(t, path)
		for range 3 {
			_ = make([]byte, 8<<20)
			runtime.GC()
		}
	}
}
