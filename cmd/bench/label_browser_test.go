package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/labels"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/workbench"
)

// screenshotsEnv names the folder the browser test writes docs/'s
// screenshots into when set (RAGBENCH_SCREENSHOTS=docs/images); CI leaves
// it unset, so they are taken (and checked) but not rewritten.
const screenshotsEnv = "RAGBENCH_SCREENSHOTS"

// labelSession is one bench label process-in-a-goroutine: serveLabel with
// a context the test cancels.
type labelSession struct {
	url            string
	srv            *workbench.Server
	stop           func()
	stdout, stderr *bytes.Buffer
}

// startLabel runs bench label args until the test stops it, and waits
// until it listens and its retrievers are built.
func startLabel(t *testing.T, args ...string) *labelSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &labelSession{stdout: new(bytes.Buffer), stderr: new(bytes.Buffer)}
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- serveLabel(ctx, s.stdout, s.stderr, args, func(url string, srv *workbench.Server) {
			s.url, s.srv = url, srv
			close(ready)
		})
	}()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("bench label %q: %v\n%s%s", args, err, s.stdout, s.stderr)
	}
	<-s.srv.Ready()
	var once sync.Once
	s.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("bench label stopped with %v", err)
			}
		})
	}
	t.Cleanup(s.stop)
	return s
}

// browser is a headless Chromium tab (fresh profile, no network but the
// workbench's) with the console errors and exceptions of its pages.
type browser struct {
	ctx     context.Context
	mu      sync.Mutex
	console []string
}

func newBrowser(t *testing.T, bin string) *browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 900)}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	b := &browser{}
	ctx, cancelC := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		var msg string
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg = "exception: " + e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				msg = fmt.Sprintf("console.%s: %s", e.Type, strings.Join(parts, " "))
			}
		}
		if msg != "" {
			b.mu.Lock()
			b.console = append(b.console, msg)
			b.mu.Unlock()
		}
	}))
	if err := chromedp.Do(ctx); err != nil { // start the browser, with no deadline (it would end the browser)
		cancelC()
		cancelA()
		t.Fatalf("%s: %v", bin, err)
	}
	t.Cleanup(func() { cancelC(); cancelA() })
	b.ctx = ctx
	return b
}

// browserStep bounds one browser step (a navigation, a click, a wait): a
// hang fails, but a 2-core machine loaded by CI's other work can take tens
// of seconds for a step that takes a few idle (TestLabelBrowser's second
// start of the workbench once took over a minute at load 13).
const browserStep = 3 * time.Minute

// do runs steps, each within browserStep.
func (b *browser) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserStep)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v (console: %q)", what, err, b.console)
	}
}

// eval evaluates a JavaScript expression.
func jsEval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserStep)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// waitFor waits until a JavaScript predicate is true (polled on every
// animation frame, at most browserStep): never a fixed sleep.
func (b *browser) waitFor(t *testing.T, what, predicate string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserStep)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingTimeout(browserStep-5*time.Second))); err != nil {
		page, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('#banner').textContent + ' | ' + document.querySelector('#status').textContent`))
		t.Fatalf("waiting for %s (%s): %v; page: %s; console: %q", what, predicate, err, page, b.console)
	}
}

// key presses one key (with modifiers) on the focused element.
func (b *browser) key(t *testing.T, k string, mods ...chromedp.Modifier) {
	t.Helper()
	var opts []chromedp.KeyOption
	if len(mods) > 0 {
		opts = append(opts, chromedp.KeyModifiers(mods...))
	}
	b.do(t, "key "+k, chromedp.KeyEvent(k, opts...))
}

// selectWithMouse selects quote in the open document as a person does:
// the left button pressed on its first character's left half, the mouse
// dragged with the button held to its last character's right half, and
// released. The browser makes the selection from these events; the page's
// own selection is then checked to be the quote.
func (b *browser) selectWithMouse(t *testing.T, quote string) {
	t.Helper()
	js := fmt.Sprintf(`(() => {
	  const q = %s, pre = document.querySelector('#doc');
	  const walk = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT), nodes = [];
	  let full = '';
	  while (walk.nextNode()) { nodes.push([walk.currentNode, full.length]); full += walk.currentNode.data; }
	  const i = full.indexOf(q);
	  if (i < 0 || full.indexOf(q, i + 1) >= 0) return [];
	  const at = (k) => { for (let j = nodes.length - 1; j >= 0; j--) if (nodes[j][1] <= k) return [nodes[j][0], k - nodes[j][1]]; };
	  const rect = (k) => { const [n, o] = at(k), r = document.createRange(); r.setStart(n, o); r.setEnd(n, o + 1); return r.getBoundingClientRect(); };
	  pre.scrollTop += rect(i).top - pre.getBoundingClientRect().top - 120;
	  const a = rect(i), z = rect(i + q.length - 1);
	  return [a.left + 1, (a.top + a.bottom) / 2, z.right - 1, (z.top + z.bottom) / 2];
	})()`, jsString(quote))
	p := jsEval[[]float64](t, b, js)
	if len(p) != 4 {
		t.Fatalf("%q is not once in the open document", quote)
	}
	held := func(d *input.DispatchMouseEventParams) { d.Button, d.Buttons = input.MouseButtonLeft, 1 }
	b.do(t, "drag over "+quote,
		chromedp.MouseEvent(chromedp.MousePressed, p[0], p[1], held, chromedp.ClickCount(1)),
		chromedp.MouseEvent(chromedp.MouseMoved, (p[0]+p[2])/2, (p[1]+p[3])/2, held),
		chromedp.MouseEvent(chromedp.MouseMoved, p[2], p[3], held),
		chromedp.MouseEvent(chromedp.MouseReleased, p[2], p[3], chromedp.ButtonLeft, chromedp.ClickCount(1)))
	if got := jsEval[string](t, b, `window.getSelection().toString()`); got != quote {
		t.Fatalf("the mouse selected %q, want %q", got, quote)
	}
}

// screenshot saves the viewport as name.png: into $RAGBENCH_SCREENSHOTS
// when set (docs/images), else the test's temporary folder; either way it
// must be a PNG.
func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserStep)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := t.TempDir()
	if d := os.Getenv(screenshotsEnv); d != "" {
		dir = d
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(testenv.RepoRoot(), dir)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// labelJSON is s as the labels files write it: JSON without HTML escaping.
func labelJSON(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// spanJSON is the passage of quote (once in text) as bench label writes
// it, computed here from the text alone: code points by counting runes up
// to the quote's byte offset, and 32 code points of context each side.
func spanJSON(t *testing.T, doc, text, quote string, grade int) string {
	t.Helper()
	if strings.Count(text, quote) != 1 {
		t.Fatalf("%q occurs %d times in %s", quote, strings.Count(text, quote), doc)
	}
	b := strings.Index(text, quote)
	start := utf8.RuneCountInString(text[:b])
	end := start + utf8.RuneCountInString(quote)
	r := []rune(text)
	prefix, suffix := string(r[max(0, start-32):start]), string(r[end:min(len(r), end+32)])
	return fmt.Sprintf(`{"doc": %s, "start": %d, "end": %d, "text": %s, "prefix": %s, "suffix": %s, "grade": %d}`,
		labelJSON(doc), start, end, labelJSON(quote), labelJSON(prefix), labelJSON(suffix), grade)
}

// The browser test's passages: one of each of two documents of the shared
// chunking-chroma corpus.
const (
	quoteSOTU = "My administration announced we’re cutting credit card late fees from $32 to $8."
	quoteWiki = "The game began development in 2010 , carrying over a large portion of the work done on Valkyria Chronicles II ."
	evilDoc   = "# Notes pasted from a web page\n\n<script>window.__pwned = 1; document.title = 'pwned'</script>\n<img src=x onerror=\"window.__pwned = 2\">\n<b>bold?</b> &amp; an entity.\n"
)

// chromaLabelling copies the shared chunking-chroma corpus (and a page
// holding HTML) into a folder with a config of two chunkings and BM25, and
// returns the folder and the config.
func chromaLabelling(t *testing.T) (dir, cfg string) {
	t.Helper()
	src := testenv.Shared(t, "datasets/chunking-chroma/corpora")
	dir = t.TempDir()
	os.Mkdir(filepath.Join(dir, "corpus"), 0o755)
	for _, name := range []string{"chatlogs.md", "state_of_the_union.md", "wikitexts.md"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "corpus", name), b, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "corpus", "pasted.md"), []byte(evilDoc), 0o644)
	cfg = filepath.Join(dir, "label.yaml")
	os.WriteFile(cfg, []byte(`name: chroma-label
dataset:
  corpus: corpus
  queries: labels.jsonl
  title: false
chunking:
  - strategy: recursive
    sizes: [800]
    overlaps: [0]
  - strategy: sentence
    sizes: [60]
retrievers:
  - name: bm25
    type: bm25
k: [1, 3, 5, 10]
metrics: [span_recall, token_recall, ndcg]
primary_metric: span_recall
prompt_k: 5
significance:
  permutations: 200
`), 0o644)
	return dir, cfg
}

// TestLabelBrowser is issue 21's acceptance, in headless Chromium driven
// through the DevTools protocol (chromedp) with real keyboard and mouse
// events, on the shared chunking-chroma corpus:
//
//  1. bench label on a labels file that does not exist yet: type a
//     question, search (Enter), open a result, select a passage with the
//     mouse and press a; find text of another document, open it, select a
//     second passage, press a, grade it 2 (key 2); a page holding
//     <script> and an onerror image shows as text and runs nothing; a new
//     question (n) is marked unanswerable (u); save (Ctrl+S). The file is
//     then checked byte for byte against offsets computed here from the
//     quoted text, and bench run scores it.
//  2. bench label with that run: the pool lists unjudged passages; one is
//     judged not relevant (x), one relevant (r); the missed list opens; the
//     saved file holds both judgements.
//  3. bench label on a copy whose labels moved (offsets) and changed (a
//     word): both are listed as stale; the moved one's repair is accepted
//     with the mouse and saved: the file is what bench labels check --fix
//     writes.
//
// Screenshots of each step are written to $RAGBENCH_SCREENSHOTS (docs/
// images) when it is set. No page logs an error or throws.
func TestLabelBrowser(t *testing.T) {
	bin := chromium(t)
	dir, cfg := chromaLabelling(t)
	labelsPath := filepath.Join(dir, "labels.jsonl")
	cache := filepath.Join(dir, "cache")

	// 1. Label from nothing.
	s := startLabel(t, "--data-dir", dir, "--cache-dir", cache, cfg)
	if !strings.Contains(s.stdout.String(), "open "+s.url) || !strings.HasPrefix(s.url, "http://127.0.0.1:") || len(s.srv.Token()) != 64 {
		t.Fatalf("bench label printed %q (url %s)", s.stdout, s.url)
	}
	b := newBrowser(t, bin)
	b.do(t, "open the workbench", chromedp.Navigate(s.url))
	b.waitFor(t, "the page", `document.body.dataset.ready === 'true' && document.querySelector('#status').textContent.includes('2 of 2 ready')`)
	question := "How much did the late fees on credit cards go down?"
	b.do(t, "type the question", chromedp.SendKeys(chromedp.CSS("#q-text"), question), chromedp.KeyEvent("\r"))
	b.waitFor(t, "results", `document.querySelectorAll('#results li').length > 0`)
	hit := jsEval[int](t, b, `Array.from(document.querySelectorAll('#results li')).findIndex((li) => li.textContent.includes('late fees from $32 to $8'))`)
	if hit < 0 {
		t.Fatalf("no result holds the passage: %s", jsEval[string](t, b, `document.querySelector('#results').textContent`))
	}
	b.do(t, "open the result", chromedp.Click(chromedp.CSS(fmt.Sprintf("#results li:nth-child(%d)", hit+1))))
	b.waitFor(t, "the document", `document.querySelector('#doc-id').textContent.startsWith('state_of_the_union') && document.querySelector('#doc .focus') !== null`)
	b.selectWithMouse(t, quoteSOTU)
	b.key(t, "a")
	b.waitFor(t, "the first passage", `document.querySelectorAll('#passages li').length === 1 && document.querySelector('#doc .gold') !== null`)
	b.waitFor(t, "the lists updated", `document.querySelector('#status').textContent.includes('1 unsaved') && document.querySelectorAll('#list-items li .badge').length === 1`)
	b.screenshot(t, "labelling-search")

	b.do(t, "find text", chromedp.SendKeys(chromedp.CSS("#find"), "carrying over a large portion"), chromedp.KeyEvent("\r"))
	b.waitFor(t, "a place found", `document.querySelector('#results li .meta') !== null && document.querySelector('#results li .meta').textContent.startsWith('wikitexts')`)
	b.do(t, "open it", chromedp.Click(chromedp.CSS("#results li:nth-child(1)")))
	b.waitFor(t, "the second document", `document.querySelector('#doc-id').textContent.startsWith('wikitexts')`)
	b.selectWithMouse(t, quoteWiki)
	b.key(t, "a")
	b.waitFor(t, "the second passage", `document.querySelectorAll('#passages li').length === 2`)
	b.key(t, "2")
	b.waitFor(t, "grade 2", `document.querySelector('#passages li:nth-child(2) select').value === '2'`)

	jsEval[chromedp.Void](t, b, `document.querySelector('#find').value = ''`)
	b.do(t, "find the HTML page", chromedp.SendKeys(chromedp.CSS("#find"), "window.__pwned = 1"), chromedp.KeyEvent("\r"))
	b.waitFor(t, "the HTML page found", `document.querySelector('#results li .meta') !== null && document.querySelector('#results li .meta').textContent.startsWith('pasted')`)
	b.do(t, "open it", chromedp.Click(chromedp.CSS("#results li:nth-child(1)")))
	b.waitFor(t, "the HTML page", `document.querySelector('#doc-id').textContent.startsWith('pasted')`)
	if got := jsEval[string](t, b, `document.querySelector('#doc').textContent`); got != evilDoc {
		t.Errorf("the HTML page shows %q, want its text %q", got, evilDoc)
	}
	if n := jsEval[int](t, b, `document.querySelectorAll('#doc *:not(span), script:not([src]), img').length`); n != 0 {
		t.Errorf("the HTML page made %d elements", n)
	}
	if ran := jsEval[bool](t, b, `window.__pwned !== undefined || document.title === 'pwned'`); ran {
		t.Error("a script of the HTML page ran")
	}

	b.key(t, "n")
	b.waitFor(t, "a new question", `document.querySelector('#q-id').value === 'q-2' && document.activeElement.id === 'q-text'`)
	b.do(t, "type it", chromedp.SendKeys(chromedp.CSS("#q-text"), "What is the airspeed velocity of an unladen swallow?"))
	b.key(t, "\x1b") // Esc leaves the text box
	b.key(t, "u")
	b.waitFor(t, "marked unanswerable", `document.querySelector('#q-state').textContent.includes('unanswerable')`)
	b.key(t, "s", chromedp.ModifierCtrl)
	b.waitFor(t, "saved", `document.querySelector('#banner').textContent.startsWith('Saved 2 questions')`)
	b.screenshot(t, "labelling-saved")

	sotu, _ := os.ReadFile(filepath.Join(dir, "corpus", "state_of_the_union.md"))
	wiki, _ := os.ReadFile(filepath.Join(dir, "corpus", "wikitexts.md"))
	want := fmt.Sprintf(`{"id": "q-1", "question": %s, "gold_spans": [%s, %s]}`+"\n"+
		`{"id": "q-2", "question": "What is the airspeed velocity of an unladen swallow?", "gold_spans": [], "unanswerable": true}`+"\n",
		labelJSON(question), spanJSON(t, "state_of_the_union", string(sotu), quoteSOTU, 1), spanJSON(t, "wikitexts", string(wiki), quoteWiki, 2))
	if got := readFile(t, labelsPath); got != want {
		t.Fatalf("the labels written:\n%s\nwant (computed from the quotes):\n%s", got, want)
	}
	s.stop()
	if !strings.Contains(s.stderr.String(), "bench label: stopped") {
		t.Errorf("stderr %q", s.stderr)
	}
	out := filepath.Join(dir, "out")
	if code, stdout, stderr := runBench("run", "--progress", "none", "--no-history", "--data-dir", dir, "--cache-dir", cache, "--output", out, cfg); code != 0 {
		t.Fatalf("bench run on the labels written: exit %d\n%s%s", code, stdout, stderr)
	}
	res, err := results.ReadResults(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Dataset; d.Queries != 2 || d.Answerable != 1 || d.Unanswerable != 1 || d.Labels != results.LabelsSpans || len(res.Cells) != 2 {
		t.Errorf("bench run scored %+v over %d cells", d, len(res.Cells))
	}
	if r := res.Cells[0].Means[results.GroupAll]["span_recall@10"]; r != 0.5 && r != 1 && r != 0 {
		t.Errorf("span_recall@10 = %v: not a share of 2 passages", r)
	}

	// 2. The pool and the misses of that run.
	s = startLabel(t, "--data-dir", dir, "--cache-dir", cache, "--results", out, cfg)
	b.do(t, "open the workbench again", chromedp.Navigate(s.url))
	b.waitFor(t, "the page", `document.body.dataset.ready === 'true'`)
	b.do(t, "the pool", chromedp.Click(chromedp.CSS(`.tabs button[data-list="pool"]`)))
	b.waitFor(t, "pooled passages", `document.querySelectorAll('#list-items[data-list="pool"] li:not(.muted)').length > 1`)
	pooled := jsEval[int](t, b, `document.querySelectorAll('#list-items li').length`)
	b.do(t, "the first pooled passage", chromedp.Click(chromedp.CSS("#list-items li:nth-child(1)")))
	b.waitFor(t, "its document", `document.querySelector('#doc .focus') !== null && document.querySelector('#q-id').value === items[0].query`)
	b.screenshot(t, "labelling-pool")
	type pair struct {
		Query      string
		Doc        string
		Start, End int
	}
	notRel := jsEval[pair](t, b, `items[active]`)
	b.key(t, "x")
	b.waitFor(t, "judged not relevant", fmt.Sprintf(`document.querySelectorAll('#list-items li').length < %d && document.querySelector('#banner').textContent.includes('judged not relevant')`, pooled))
	pooled = jsEval[int](t, b, `document.querySelectorAll('#list-items li').length`)
	rel := jsEval[pair](t, b, `items[active]`)
	b.key(t, "r")
	b.waitFor(t, "judged relevant", fmt.Sprintf(`document.querySelectorAll('#list-items li').length < %d && document.querySelector('#banner').textContent.includes('judged relevant')`, pooled))
	b.do(t, "the misses", chromedp.Click(chromedp.CSS(`.tabs button[data-list="missed"]`)))
	b.waitFor(t, "the missed list", `document.querySelector('#list-items[data-list="missed"] li') !== null`)
	if jsEval[bool](t, b, `document.querySelector('#list-items li').classList.contains('muted')`) == false {
		b.do(t, "a miss", chromedp.Click(chromedp.CSS("#list-items li:nth-child(1)")))
		b.waitFor(t, "the missed passage", `document.querySelector('#doc .miss') !== null && document.querySelectorAll('#results li').length > 0`)
		b.screenshot(t, "labelling-missed")
	}
	b.key(t, "s", chromedp.ModifierCtrl)
	b.waitFor(t, "saved", `document.querySelector('#banner').textContent.startsWith('Saved 2 questions')`)
	// Once "Saved" shows, nothing is unsaved, even before the page reads
	// the state again: stopping the server now must not leave a
	// "leave the page?" prompt (it hung the next navigation).
	if dirty := jsEval[int](t, b, `state.dirty`); dirty != 0 {
		t.Errorf("after the save, the page counts %d unsaved edits", dirty)
	}
	s.stop()
	judged, err := labels.ReadFile(labelsPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		p     pair
		grade int
	}{{notRel, 0}, {rel, 1}} {
		row, ok := judged.Row(want.p.Query)
		ps := row.Passages()
		if !ok || len(ps) == 0 {
			t.Fatalf("no row %s", want.p.Query)
		}
		last := ps[len(ps)-1]
		if want.p.Query == rel.Query && want.grade == 0 && len(ps) > 1 {
			last = ps[len(ps)-2] // both judgements went to one question
		}
		if last.Doc != want.p.Doc || last.Start != want.p.Start || last.End != want.p.End || last.Grade != want.grade {
			t.Errorf("%s: judged %+v with grade %d; the file holds %+v", want.p.Query, want.p, want.grade, ps)
		}
	}
	if ok, _ := judged.Row("q-2"); ok != nil && rel.Query == "q-2" && ok.Unanswerable {
		t.Error("q-2 judged to have a relevant passage is still marked unanswerable")
	}
	want = readFile(t, labelsPath)

	// 3. A moved and a changed label.
	first := regexp.MustCompile(`"start": (\d+), "end": (\d+)`).FindStringSubmatchIndex(want)
	st, _ := strconv.Atoi(want[first[2]:first[3]])
	en, _ := strconv.Atoi(want[first[4]:first[5]])
	stale := want[:first[0]] + fmt.Sprintf(`"start": %d, "end": %d`, st+3, en+3) + want[first[1]:]                                  // the first passage's text is no longer at its offsets: moved
	stale = strings.Replace(stale, `"text": "The game began development in 2010`, `"text": "The game began development in 2011`, 1) // changed
	os.WriteFile(labelsPath, []byte(stale), 0o644)
	os.Remove(labelsPath + ".anchors.json")
	fixed := filepath.Join(dir, "fixed.jsonl")
	if code, _, stderr := runBench("labels", "check", "--corpus", filepath.Join(dir, "corpus"), "--fix", "--output", fixed, labelsPath); code != 1 {
		t.Fatalf("bench labels check --fix: exit %d %s", code, stderr)
	}
	s = startLabel(t, "--data-dir", dir, "--cache-dir", cache, cfg)
	b.do(t, "open the stale labels", chromedp.Navigate(s.url))
	b.waitFor(t, "the page", `document.body.dataset.ready === 'true'`)
	b.do(t, "the stale list", chromedp.Click(chromedp.CSS(`.tabs button[data-list="stale"]`)))
	b.waitFor(t, "two stale labels", `document.querySelectorAll('#list-items[data-list="stale"] li').length === 2`)
	items := jsEval[string](t, b, `document.querySelector('#list-items').textContent`)
	if !strings.Contains(items, "moved") || !strings.Contains(items, "changed") {
		t.Errorf("the stale list: %s", items)
	}
	b.do(t, "the changed one", chromedp.Click(chromedp.CSS("#list-items li:nth-child(2)")))
	b.waitFor(t, "its nearest passage", `document.querySelector('#doc .suggest') !== null`)
	b.do(t, "the moved one", chromedp.Click(chromedp.CSS("#list-items li:nth-child(1)")))
	b.waitFor(t, "its repair", `document.querySelector('#q-problems button.accept') !== null`)
	b.screenshot(t, "labelling-stale")
	b.do(t, "accept the repair", chromedp.Click(chromedp.CSS("#q-problems button.accept")))
	b.waitFor(t, "accepted", `document.querySelector('#banner').textContent.startsWith('Repair accepted')`)
	b.do(t, "save", chromedp.Click(chromedp.CSS("#save")))
	b.waitFor(t, "saved", `document.querySelector('#banner').textContent.startsWith('Saved 2 questions')`)
	// Once "Saved" shows, nothing is unsaved, even before the page reads
	// the state again: stopping the server now must not leave a
	// "leave the page?" prompt (it hung the next navigation).
	if dirty := jsEval[int](t, b, `state.dirty`); dirty != 0 {
		t.Errorf("after the save, the page counts %d unsaved edits", dirty)
	}
	s.stop()
	if got, want := readFile(t, labelsPath), readFile(t, fixed); got != want {
		t.Errorf("the repair accepted and saved:\n%s\nbench labels check --fix writes:\n%s", got, want)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.console) > 0 {
		t.Errorf("the pages logged errors: %q", b.console)
	}
}
