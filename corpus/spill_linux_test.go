package corpus

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/ragbench/ragbench/internal/testenv"
)

// TestTextsRelease: reading the spilled texts brings their pages into the
// process's RSS (the mapping's Rss in /proc/self/smaps, a deleted file);
// Release drops them, and the texts read the same after it.
func TestTextsRelease(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, `{"_id":"d%d","title":"title %d","text":"%s"}`+"\n", i, i, strings.Repeat(fmt.Sprintf("word%d ", i), 100))
	}
	p := writeFile(t, "c.jsonl", b.String())
	want, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	docs, _, texts, err := LoadSpilled(p, t.TempDir())
	if err != nil || !texts.Spilled() {
		t.Fatalf("spilled %v, err %v", texts.Spilled(), err)
	}
	mapping := func() (rss int, deleted bool) {
		t.Helper()
		addr := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(texts.mem))))
		maps, ok := testenv.Mappings(t)
		if !ok {
			t.Skip("no /proc/self/smaps")
		}
		for _, m := range maps {
			if addr >= m.Lo && addr < m.Hi {
				return m.RssKB, strings.HasSuffix(m.Path, "(deleted)")
			}
		}
		t.Fatal("the spill mapping is not in /proc/self/smaps")
		return 0, false
	}
	read := func() {
		for i := range docs {
			if docs[i] != want[i] {
				t.Fatalf("document %d differs", i)
			}
		}
	}
	read()
	rss, deleted := mapping()
	if !deleted {
		t.Error("the spill mapping's file is not deleted")
	}
	if rss*1024 < texts.Bytes()/2 {
		t.Errorf("after reading every text: %d kB of the mapping resident, want about %d kB", rss, texts.Bytes()/1024)
	}
	texts.Release()
	if rss, _ := mapping(); rss != 0 {
		t.Errorf("after Release: %d kB resident, want 0", rss)
	}
	// Detach reads by offset: equal strings (a whole text, a chunk's
	// substring, a title) on the heap, and nothing resident (compared with
	// Load's heap copies: comparing with the mapped strings would read them).
	for i := range docs {
		d, w := docs[i], want[i]
		for j, s := range []string{d.Text, d.Text[7 : len(d.Text)-3], d.Title} {
			c := texts.Detach(s)
			if ws := []string{w.Text, w.Text[7 : len(w.Text)-3], w.Title}[j]; c != ws {
				t.Fatalf("document %d: Detach = %.20q, want %.20q", i, c, ws)
			}
			if unsafe.StringData(c) == unsafe.StringData(s) {
				t.Fatalf("document %d: Detach returned the mapped string itself", i)
			}
		}
	}
	if rss, _ := mapping(); rss != 0 {
		t.Errorf("after Detach of every text: %d kB resident, want 0", rss)
	}
	if s := "not spilled"; unsafe.StringData(texts.Detach(s)) != unsafe.StringData(s) {
		t.Error("Detach copied a string outside the mapping")
	}
	read()
	if rss, _ := mapping(); rss == 0 {
		t.Error("reading after Release faulted nothing back in")
	}
	// Paced releases during the pass, not only after it.
	texts.Release()
	during := -1
	texts.Paced(func() {
		read()
		if rss, _ := mapping(); rss == 0 {
			t.Error("Paced: reading every text faulted nothing in")
		}
		time.Sleep(3 * PaceInterval)
		during, _ = mapping()
	})
	if during != 0 {
		t.Errorf("Paced: %d kB resident %v into the pass, want 0", during, 3*PaceInterval)
	}
	if rss, _ := mapping(); rss != 0 {
		t.Errorf("after Paced: %d kB resident, want 0", rss)
	}
}
