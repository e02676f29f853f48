package testenv

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Mapping is one mapping of the process, as /proc/self/smaps lists it:
// its address range [Lo, Hi), its file's path ("" for an anonymous one;
// a deleted file's path ends in " (deleted)") and its resident size (Rss,
// in kB).
type Mapping struct {
	Lo, Hi uint64
	Path   string
	RssKB  int
}

// Mappings is the process's mappings from /proc/self/smaps (Linux), for
// tests of what a package keeps resident (the spill of corpus.Texts, the
// bm25 segments); ok is false where the file cannot be read (other
// systems). A malformed line fails t.
func Mappings(t testing.TB) (maps []Mapping, ok bool) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if !strings.HasSuffix(fields[0], ":") { // a mapping's header: range perms offset dev inode [path]
			lo, hi, _ := strings.Cut(fields[0], "-")
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("/proc/self/smaps: bad range in %q", sc.Text())
			}
			m := Mapping{Lo: l, Hi: h}
			if len(fields) >= 6 {
				m.Path = strings.Join(fields[5:], " ")
			}
			maps = append(maps, m)
			continue
		}
		if fields[0] == "Rss:" && len(maps) > 0 && len(fields) >= 2 {
			n, err := strconv.Atoi(fields[1])
			if err != nil {
				t.Fatalf("/proc/self/smaps: bad Rss in %q", sc.Text())
			}
			maps[len(maps)-1].RssKB = n
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return maps, true
}
