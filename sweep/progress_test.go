package sweep

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/report"
)

// tickClock is a clock that moves one second forward at every call, so each
// progress stage (one call when it begins, one when it ends) lasts 1s.
func tickClock() func() time.Time {
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time {
		t = t.Add(time.Second)
		return t
	}
}

// TestProgressPlain: with stderr not a terminal (a bytes.Buffer) and plain
// progress, the small sweep writes one line when each stage starts and one
// when it ends, no carriage return. Expected lines by hand from the fixture
// (testdata/small): 6 documents; whole-document chunking gives 6 chunks,
// fixed-4o1 (windows of 4 words every 3) gives 3+3+2+3+2+2 = 15 chunks for
// passages of 10, 8, 7, 8, 7 and 6 words (1 + ⌈(n−4)/3⌉ each); all 6 judged
// queries are searched and fused, the 4 answerable ones scored; 6 cells
// give 6·5/2 = 15 paired comparisons on one metric. A cached second run
// replaces index and search (or fuse) by one line per cell.
func TestProgressPlain(t *testing.T) {
	dir := t.TempDir()
	cfg := loadSmall(t, dir)
	var buf bytes.Buffer
	if _, err := Run(t.Context(), cfg, Options{NoHistory: true, Stderr: &buf, Progress: ProgressPlain, clock: tickClock()}); err != nil {
		t.Fatal(err)
	}
	stage := func(scope, what, note string) []string {
		if note != "" {
			note = "; " + note
		}
		return []string{
			"bench run: " + scope + ": " + what + " …",
			"bench run: " + scope + ": " + what + " done in 1.00s" + note,
		}
	}
	first := func(scope, chunks string) []string {
		return append(append(stage(scope, "index "+chunks+" chunks", ""), stage(scope, "search 6 queries", "")...), stage(scope, "score 4 queries", "")...)
	}
	fused := func(scope string) []string {
		return append(stage(scope, "fuse 6 queries", ""), stage(scope, "score 4 queries", "")...)
	}
	var want []string
	want = append(want, stage("chunking doc", "chunk 6 documents", "6 chunks")...)
	want = append(want, first("[1/6] doc/bm25", "6")...)
	want = append(want, first("[2/6] doc/bm25-flat", "6")...)
	want = append(want, fused("[3/6] doc/rrf")...)
	want = append(want, stage("chunking fixed-4o1", "chunk 6 documents", "15 chunks")...)
	want = append(want, first("[4/6] fixed-4o1/bm25", "15")...)
	want = append(want, first("[5/6] fixed-4o1/bm25-flat", "15")...)
	want = append(want, fused("[6/6] fixed-4o1/rrf")...)
	want = append(want, stage("all cells", "significance 5 paired comparisons", "")...)
	want = append(want, stage("all cells", "write outputs 6 cells", "")...)
	checkLines(t, "first run", buf.String(), want)

	// Second run: every cell from the run cache.
	buf.Reset()
	if _, err := Run(t.Context(), cfg, Options{NoHistory: true, Stderr: &buf, Progress: ProgressPlain, clock: tickClock()}); err != nil {
		t.Fatal(err)
	}
	want = nil
	for i, ch := range []string{"doc", "fixed-4o1"} {
		chunks := []string{"6", "15"}[i]
		want = append(want, stage("chunking "+ch, "chunk 6 documents", chunks+" chunks")...)
		for j, r := range []string{"bm25", "bm25-flat", "rrf"} {
			scope := fmt.Sprintf("[%d/6] %s/%s", 3*i+j+1, ch, r)
			want = append(want, "bench run: "+scope+": run read from the run cache (nothing built or searched)")
			want = append(want, stage(scope, "score 4 queries", "")...)
		}
	}
	want = append(want, stage("all cells", "significance 5 paired comparisons", "")...)
	want = append(want, stage("all cells", "write outputs 6 cells", "")...)
	checkLines(t, "cached run", buf.String(), want)
}

func checkLines(t *testing.T, what, got string, want []string) {
	t.Helper()
	if strings.ContainsAny(got, "\r\x1b") {
		t.Errorf("%s: plain progress holds a carriage return or escape code: %q", what, got)
	}
	if !strings.HasSuffix(got, "\n") {
		t.Errorf("%s: output does not end in a newline", what)
	}
	for _, d := range testenv.DiffLines(want, strings.Split(strings.TrimSuffix(got, "\n"), "\n")) {
		t.Errorf("%s: line %d\n got %q\nwant %q", what, d.Line, d.Got, d.Want)
	}
}

// TestProgressBar: the bar mode draws bars with carriage returns, each
// stage under its own description, and leaves one finished line per cell.
func TestProgressBar(t *testing.T) {
	cfg := loadSmall(t, t.TempDir())
	var buf bytes.Buffer
	if _, err := Run(t.Context(), cfg, Options{NoHistory: true, Stderr: &buf, Progress: ProgressBar, clock: tickClock()}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, s := range []string{"\rchunking doc: chunk", "\r[1/6] doc/bm25: index", "(0/6, ", "chunks/", "\r[1/6] doc/bm25: search", "queries/",
		"\r[3/6] doc/rrf: fuse", "\r[6/6] fixed-4o1/rrf: score", "(0/15, "} {
		if !strings.Contains(out, s) {
			t.Errorf("bar output lacks %q", s)
		}
	}
	// Persistent lines: one per cell, each 4 clock ticks (cell start,
	// stages begin/end pairs: index+search+score = 6 ticks → 7s for BM25
	// cells; fuse+score = 4 ticks → 5s for RRF cells).
	var kept []string
	for _, l := range strings.Split(out, "\n") {
		if i := strings.LastIndex(l, "\r"); i >= 0 {
			l = l[i+1:]
		}
		if l != "" {
			kept = append(kept, l)
		}
	}
	want := []string{
		"bench run: [1/6] doc/bm25: done in 7.00s",
		"bench run: [2/6] doc/bm25-flat: done in 7.00s",
		"bench run: [3/6] doc/rrf: done in 5.00s",
		"bench run: [4/6] fixed-4o1/bm25: done in 7.00s",
		"bench run: [5/6] fixed-4o1/bm25-flat: done in 7.00s",
		"bench run: [6/6] fixed-4o1/rrf: done in 5.00s",
	}
	if strings.Join(kept, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines left after the bars:\n%s\nwant\n%s", strings.Join(kept, "\n"), strings.Join(want, "\n"))
	}
}

// TestProgressKeepsResults: results.json (timings aside) and report.md
// (timing section aside) are byte-identical whatever the progress mode.
func TestProgressKeepsResults(t *testing.T) {
	var results, reports [][]byte
	for _, mode := range []ProgressMode{ProgressNone, ProgressPlain, ProgressBar} {
		cfg := loadSmall(t, t.TempDir())
		var buf bytes.Buffer
		if _, err := Run(t.Context(), cfg, Options{NoHistory: true, Stderr: &buf, Progress: mode}); err != nil {
			t.Fatal(err)
		}
		if mode == ProgressNone && buf.Len() != 0 {
			t.Errorf("ProgressNone wrote %q", buf.String())
		}
		results = append(results, withoutTimings(t, filepath.Join(cfg.Output, "results.json")))
		reports = append(reports, reportWithoutTimings(t, filepath.Join(cfg.Output, "report.md")))
	}
	for i := 1; i < len(results); i++ {
		if !bytes.Equal(results[0], results[i]) {
			t.Errorf("results.json with progress mode %d differs from mode 0", i)
		}
		if !bytes.Equal(reports[0], reports[i]) {
			t.Errorf("report.md with progress mode %d differs from mode 0", i)
		}
	}
}

func reportWithoutTimings(t *testing.T, path string) []byte {
	t.Helper()
	b := readFile(t, path)
	i := bytes.Index(b, []byte("## Timings"))
	if i < 0 {
		t.Fatalf("%s: no timings section", path)
	}
	j := bytes.Index(b[i:], []byte("\n## "))
	if j < 0 {
		return b[:i]
	}
	return append(append([]byte{}, b[:i]...), b[i+j:]...)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseProgressMode(t *testing.T) {
	for s, want := range map[string]ProgressMode{"none": ProgressNone, "bar": ProgressBar, "plain": ProgressPlain} {
		if got, err := ParseProgressMode(s); err != nil || got != want || got.String() != s {
			t.Errorf("%q: %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "auto", "Plain", "always"} {
		if _, err := ParseProgressMode(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}

func TestProgressHelpers(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 12345: "12,345", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := report.GroupDigits(n); got != want {
			t.Errorf("report.GroupDigits(%d) = %q, want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{
		420 * time.Millisecond: "0.42s", 59*time.Second + 990*time.Millisecond: "59.99s",
		62 * time.Second: "1m02s", 3723 * time.Second: "1h02m03s",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
	for unit, want := range map[string]string{"queries": "1 query", "paired comparisons": "1 paired comparison", "chunks": "1 chunk"} {
		p := &progress{stage: "x", unit: unit, total: 1}
		if got := p.what(); got != "x "+want {
			t.Errorf("what() = %q, want %q", got, "x "+want)
		}
	}
	// The backend's typed counts move only the stage being shown.
	p := newProgress(ProgressPlain, io.Discard, nil)
	p.begin("cell", "embed", 345, "chunks")
	for _, c := range []struct {
		stage       string
		done, total int
		wantDone    int
	}{
		{"embed", 12, 345, 12},
		{"rerank", 40, 1200, 12}, // another stage: ignored
		{"embed", -1, 345, 12},   // negative: ignored
		{"embed", 300, 345, 300},
	} {
		p.stageProgress(c.stage, c.done, c.total)
		if p.done != c.wantDone || p.total != 345 {
			t.Errorf("after stageProgress(%q, %d, %d): done %d of %d, want %d of 345", c.stage, c.done, c.total, p.done, p.total, c.wantDone)
		}
	}
	p.end("")
	p.stageProgress("embed", 345, 345) // no stage active: ignored
	if p.done != 300 {
		t.Errorf("stageProgress after end changed done to %d", p.done)
	}
}

// TestProgressPlainEveryTenth: in plain mode a counted stage also writes a
// line each time another tenth is done, or when 30 s passed since the last
// line (before the fix a 4-minute embedding wrote only its first and last
// line). By hand: 1,000 chunks; done 50 (5 %, 1 s in: nothing), 100
// (10 %: a line), 150 (15 %, but 40 s after the last line: a line), 190
// (no new tenth, 1 s later: nothing), 350 (30 %: one line, not two),
// 1,000 (the end line's job: nothing).
func TestProgressPlainEveryTenth(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := newProgress(ProgressPlain, &buf, func() time.Time { return now })
	p.begin("[1/1] doc/dense", "embed", 1000, "chunks")
	for _, step := range []struct {
		after time.Duration
		done  int
	}{{time.Second, 50}, {time.Second, 100}, {40 * time.Second, 150}, {time.Second, 190}, {time.Second, 350}, {time.Second, 1000}} {
		now = now.Add(step.after)
		p.set(step.done, 0)
	}
	want := []string{
		"bench run: [1/1] doc/dense: embed 1,000 chunks …",
		"bench run: [1/1] doc/dense: embed 100 of 1,000 chunks (10%) after 2.00s",
		"bench run: [1/1] doc/dense: embed 150 of 1,000 chunks (15%) after 42.00s",
		"bench run: [1/1] doc/dense: embed 350 of 1,000 chunks (35%) after 44.00s",
	}
	if got := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
