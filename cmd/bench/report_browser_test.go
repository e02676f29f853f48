package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromium returns the headless browser to test report.html with:
// $CHROMIUM, else chromium or chromium-browser on PATH. Without one the
// test is skipped, except under CI=true, where it fails (CI installs it:
// scripts/setup.sh).
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium not found under CI: scripts/setup.sh installs it (apt-get install chromium)")
	}
	t.Skip("chromium not found (apt-get install chromium, or set CHROMIUM)")
	return ""
}

// browse loads page (a file) in headless Chromium, with the network
// closed and a fresh profile, and returns the DOM after the page's scripts
// ran and every console message it logged; with shot != "" it also saves
// a 1280×height screenshot there.
func browse(t *testing.T, bin, page, shot string, height int) (dom string, console []string) {
	t.Helper()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=1",
		fmt.Sprintf("--window-size=1280,%d", height)}
	if shot != "" {
		args = append(args, "--screenshot="+shot)
	} else {
		args = append(args, "--dump-dom")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+page)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, tail(errb.String(), 2000))
	}
	// Chromium logs each console message (any level, uncaught errors and
	// failed loads included) as ":INFO:CONSOLE(line)] "message", source: …".
	for _, line := range strings.Split(errb.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			console = append(console, line)
		}
	}
	return out.String(), console
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// checkPage returns what is wrong with a report.html DOM: a chart missing
// (want[class] inline SVG charts of each figure class), the tables, or the
// misses browser not filled by its script.
func checkPage(dom string, want map[string]int, cells int) []string {
	var bad []string
	for class, n := range want {
		re := regexp.MustCompile(`<figure class="` + class + `"><svg [^>]*class="chart"`)
		if got := len(re.FindAllString(dom, -1)); got != n {
			bad = append(bad, fmt.Sprintf("%d %s charts, want %d", got, class, n))
		}
	}
	for _, id := range []string{`id="main-table"`, `id="comparisons"`} {
		if !strings.Contains(dom, id) {
			bad = append(bad, "no "+id)
		}
	}
	if got := strings.Count(dom, "<option value="); got != cells {
		bad = append(bad, fmt.Sprintf("the misses browser lists %d cells, want %d (its script did not run?)", got, cells))
	}
	return bad
}

// checkComparisons returns what is wrong with the significance view of
// small.yaml's report.html (issue 23): each cell against the baseline
// doc/bm25 (the best BM25 cell; every cell ties with it), the plan and its
// number of comparisons, the interval method, and the five comparisons,
// each "unchanged (identical)" and not counted, as the browser renders
// them; no all-pairs matrix unless significance.matrix asks for one.
func checkComparisons(dom string) []string {
	var bad []string
	for _, want := range []string{
		`<h2 id="significance">Each cell against the baseline doc/bm25: ndcg@3</h2>`,
		`<p class="note">Plan: each cell against baseline doc/bm25: 5 comparisons × 1 metric = 5; 5 identical (same score on every query) reported as unchanged and not counted, 0 counted.</p>`,
		`<p class="note">The baseline, doc/bm25, is the best BM25 cell on ndcg@3 (set significance.baseline to choose another).</p>`,
		`<th>95% CI (bootstrap BCa)</th>`,
		`<a href="#significance">Significance</a>`,
	} {
		if !strings.Contains(dom, want) {
			bad = append(bad, "the significance view lacks "+want)
		}
	}
	rows := regexp.MustCompile(`<tr><td data-v="">([^<]+)</td><td data-v="[^"]*">0\.6533</td><td data-v="">doc/bm25</td><td data-v="[^"]*">0\.6533</td><td data-v="0">\+0\.0000</td><td data-v="0">\[\+0\.0000, \+0\.0000\]</td><td data-v="">–</td><td data-v="">unchanged \(identical\)</td></tr>`).FindAllStringSubmatch(dom, -1)
	var cells []string
	for _, r := range rows {
		cells = append(cells, r[1])
	}
	if got := strings.Join(cells, ","); got != "doc/bm25-flat,doc/rrf,fixed-4o1/bm25,fixed-4o1/bm25-flat,fixed-4o1/rrf" {
		bad = append(bad, "the comparison rows name "+got+", want the five cells other than doc/bm25, each unchanged (identical)")
	}
	if strings.Contains(dom, `id="matrix"`) {
		bad = append(bad, "an all-pairs matrix without significance.matrix")
	}
	return bad
}

// TestReportHTMLInBrowser opens report.html of sweep/testdata/small.yaml in
// headless Chromium: it must render with no console message at all (an
// error, a failed load or a stray log), with each chart present — 2
// recall@k charts (chunkings doc and fixed-4o1), 3 slice charts (all
// queries, slices multi and single), the history chart — the tables, and
// the misses browser filled for the 6 cells. A screenshot is saved (to
// $RAGBENCH_SCREENSHOT when set, else in the test's temporary folder) and
// must be a PNG. The checker itself is tried first on a page with a
// console error and no chart, which it must reject: a browser test that
// cannot fail is no test.
func TestReportHTMLInBrowser(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()

	bad := filepath.Join(dir, "bad.html")
	os.WriteFile(bad, []byte(`<!DOCTYPE html><html><head><link rel="icon" href="data:,"></head><body><script>console.error("boom")</script></body></html>`), 0o644)
	dom, console := browse(t, bin, bad, "", 600)
	if len(console) != 1 || !strings.Contains(console[0], "boom") || len(checkPage(dom, map[string]int{"chart-recall": 1}, 1)) == 0 || len(checkComparisons(dom)) == 0 {
		t.Fatalf("the checker accepts a broken page: console %q, DOM %.200q", console, dom)
	}

	args := []string{"run", "--progress", "none", "--data-dir", "../../sweep/testdata/small", "--output", filepath.Join(dir, "out"),
		"--cache-dir", filepath.Join(dir, "cache"), "--history", filepath.Join(dir, "history.csv"), "../../sweep/testdata/small.yaml"}
	for range 2 { // two runs: the history chart has two points per cell
		var o, e bytes.Buffer
		if code := run(&o, &e, args); code != 0 {
			t.Fatalf("bench run: exit %d\n%s", code, e.String())
		}
	}
	page := filepath.Join(dir, "out", "report.html")
	dom, console = browse(t, bin, page, "", 900)
	if len(console) > 0 {
		t.Errorf("report.html logged to the console:\n%s", strings.Join(console, "\n"))
	}
	for _, p := range checkPage(dom, map[string]int{"chart-recall": 2, "chart-slice": 3, "chart-history": 1, "chart-comparison": 1}, 6) {
		t.Error(p)
	}
	for _, p := range checkComparisons(dom) {
		t.Error(p)
	}
	shot := os.Getenv("RAGBENCH_SCREENSHOT")
	if shot == "" {
		shot = filepath.Join(dir, "report.png")
	}
	if _, console = browse(t, bin, page, shot, 3200); len(console) > 0 {
		t.Errorf("report.html logged to the console while taking the screenshot:\n%s", strings.Join(console, "\n"))
	}
	png, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 10000 {
		t.Fatalf("screenshot %s: %d bytes, err %v; want a PNG", shot, len(png), err)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))
}
