package workbench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/internal/testenv"
	"github.com/ragbench/ragbench/labels"
	"github.com/ragbench/ragbench/results"
	"github.com/ragbench/ragbench/spans"
	"github.com/ragbench/ragbench/sweep"
)

// fixture is a workbench session over a copy of testdata.
type fixture struct {
	dir, labels string
	cfg         *config.Config
	docs        []corpus.Document
	srv         *Server
	ts          *httptest.Server
}

// load reads the copy's config and corpus.
func load(t testing.TB, dir string) (*config.Config, []corpus.Document) {
	t.Helper()
	cfg, err := config.Load(filepath.Join(dir, "bench.yaml"), config.LoadOptions{DataDir: dir, CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := corpus.Load(filepath.Join(dir, "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg, docs
}

// newFixture opens a session on labelsName (a file of the copy, or a new
// one) in dir (a copy of testdata; "" makes one), with the last run in
// results ("" none), and waits for its retrievers.
func newFixture(t testing.TB, dir, labelsName, results string) *fixture {
	t.Helper()
	if dir == "" {
		dir = testenv.CopyTree(t, "testdata")
	}
	cfg, docs := load(t, dir)
	f := &fixture{dir: dir, labels: filepath.Join(dir, labelsName), cfg: cfg, docs: docs}
	srv, err := New(Options{Config: cfg, Docs: docs, Labels: f.labels, Results: results})
	if err != nil {
		t.Fatal(err)
	}
	f.srv = srv
	<-srv.Ready()
	f.ts = httptest.NewServer(srv.Handler())
	t.Cleanup(func() { f.ts.Close(); srv.Close() })
	return f
}

// do sends a request with the session token (header) unless token is
// false, and returns the status and body.
func (f *fixture) do(t testing.TB, method, path string, body any, token bool) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, f.ts.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token {
		req.Header.Set("X-Bench-Token", f.srv.Token())
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (f *fixture) get(t testing.TB, path string, v any) {
	t.Helper()
	code, b := f.do(t, "GET", path, nil, true)
	if code != 200 {
		t.Fatalf("GET %s: %d %s", path, code, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v in %s", path, err, b)
	}
}

func (f *fixture) post(t testing.TB, path string, body, v any) {
	t.Helper()
	code, b := f.do(t, "POST", path, body, true)
	if code != 200 {
		t.Fatalf("POST %s: %d %s", path, code, b)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("POST %s: %v in %s", path, err, b)
		}
	}
}

// endpoints are every route, with a method and a body that would do
// something with the token.
var endpoints = []struct{ method, path string }{
	{"GET", "/"}, {"GET", "/static/app.js"}, {"GET", "/static/app.css"}, {"GET", "/api/state"}, {"GET", "/api/list?name=all"},
	{"GET", "/api/question?id=carry-over"}, {"GET", "/api/doc?id=policies/leave"}, {"GET", "/api/docs"},
	{"GET", "/api/search?q=leave"}, {"GET", "/api/find?q=leave"},
	{"POST", "/api/question"}, {"POST", "/api/delete"}, {"POST", "/api/judge"}, {"POST", "/api/repair"}, {"POST", "/api/save"},
}

// TestToken: every endpoint answers 403 to a request without the session
// token, with a wrong one, and (for a POST) with the token in the URL
// only; with it, GETs answer and every response forbids framing, caching,
// sniffing and any script but the page's own.
func TestToken(t *testing.T) {
	f := newFixture(t, "", "labels.jsonl", "")
	body := map[string]any{"id": "parking"}
	for _, e := range endpoints {
		var b any
		if e.method == "POST" {
			b = body
		}
		if code, _ := f.do(t, e.method, e.path, b, false); code != http.StatusForbidden {
			t.Errorf("%s %s without the token: %d, want 403", e.method, e.path, code)
		}
		req, _ := http.NewRequest(e.method, f.ts.URL+e.path, strings.NewReader(`{"id": "parking"}`))
		req.Header.Set("X-Bench-Token", strings.Repeat("0", 64))
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s %s with a wrong token: %v %v, want 403", e.method, e.path, resp.StatusCode, err)
		}
		sep := "?"
		if strings.Contains(e.path, "?") {
			sep = "&"
		}
		req, _ = http.NewRequest(e.method, f.ts.URL+e.path+sep+"token="+f.srv.Token(), strings.NewReader(`{"id": "parking"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := http.StatusOK
		if e.method == "POST" {
			want = http.StatusForbidden // a form of another site cannot set the header
		}
		if resp.StatusCode != want {
			t.Errorf("%s %s with ?token=: %d, want %d", e.method, e.path, resp.StatusCode, want)
		}
		for k, v := range map[string]string{"Cache-Control": "no-store", "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"} {
			if got := resp.Header.Get(k); got != v {
				t.Errorf("%s %s: %s %q, want %q", e.method, e.path, k, got, v)
			}
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s %s: CSP %q", e.method, e.path, csp)
		}
	}
}

// TestMethods: state-changing endpoints are POST only (GET: 405), need a
// JSON body (415 otherwise), and read endpoints refuse POST.
func TestMethods(t *testing.T) {
	f := newFixture(t, "", "labels.jsonl", "")
	for _, e := range endpoints {
		other := "POST"
		if e.method == "POST" {
			other = "GET"
		}
		if strings.HasPrefix(e.path, "/api/question") {
			continue // GET reads a question, POST edits it
		}
		if code, _ := f.do(t, other, e.path, nil, true); code != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: %d, want 405", other, e.path, code)
		}
	}
	req, _ := http.NewRequest("POST", f.ts.URL+"/api/save", strings.NewReader("{}"))
	req.Header.Set("X-Bench-Token", f.srv.Token())
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("a form POST: %v %v, want 415", resp.StatusCode, err)
	}
	if code, b := f.do(t, "POST", "/api/question", map[string]any{"id": "x", "bogus": 1}, true); code != 400 || !strings.Contains(string(b), "unknown field") {
		t.Errorf("an unknown field: %d %s", code, b)
	}
}

// TestDocLookup: documents are looked up by id in the corpus loaded at
// start, never joined into a path: ../../etc/passwd and friends are 404
// (as a parameter or in the path); a document holding HTML is served as a
// JSON string, its markup inert (escaped), byte for byte the file's text.
func TestDocLookup(t *testing.T) {
	f := newFixture(t, "", "labels.jsonl", "")
	for _, p := range []string{"/api/doc?id=../../etc/passwd", "/api/doc?id=%2E%2E%2F%2E%2E%2Fetc%2Fpasswd", "/api/doc?id=/etc/passwd",
		"/api/doc?id=policies/../../../../etc/passwd", "/api/doc?id=policies/leave.md", "/api/doc/../../etc/passwd", "/api/doc?id=",
		"/static/../../etc/passwd", "/static/..%2F..%2Fgo.mod", "/static/index.html", "/api/question?id=../../etc/passwd", "/etc/passwd"} {
		if code, b := f.do(t, "GET", p, nil, true); code != http.StatusNotFound {
			t.Errorf("GET %s: %d %.80s, want 404", p, code, b)
		}
	}
	code, b := f.do(t, "GET", "/api/doc?id=evil", nil, true)
	if code != 200 || bytes.Contains(b, []byte("<script>")) || !bytes.Contains(b, []byte(`\u003cscript\u003e`)) {
		t.Fatalf("evil: %d %s", code, b)
	}
	var d docView
	json.Unmarshal(b, &d)
	want, _ := os.ReadFile(filepath.Join(f.dir, "corpus", "evil.md"))
	if d.Text != string(want) || d.Len != utf8.RuneCount(want) {
		t.Errorf("evil's text %q, want the file's %q", d.Text, want)
	}
}

// TestSearch: a search pools the top results of every ready cell (two
// chunkings × bm25, bm25-flat and their RRF fusion), one hit per text
// span, each with the cells and ranks that returned it; the passage that
// answers comes first; the plain text search finds text across line ends,
// quote marks and case.
func TestSearch(t *testing.T) {
	f := newFixture(t, "", "labels.jsonl", "")
	var st stateView
	f.get(t, "/api/state", &st)
	if len(st.Cells) != 6 {
		t.Fatalf("cells %+v", st.Cells)
	}
	for _, c := range st.Cells {
		if c.State != stateReady {
			t.Errorf("cell %s: %s %s", c.Name, c.State, c.Note)
		}
	}
	var r struct {
		Hits  []Hit    `json:"hits"`
		Notes []string `json:"notes"`
	}
	f.get(t, "/api/search?q=who+can+unlock+my+account", &r)
	if len(r.Hits) == 0 || len(r.Notes) != 0 {
		t.Fatalf("%+v", r)
	}
	top := r.Hits[0]
	if top.Doc != "it/passwords" || !strings.Contains(top.Text, "unlock") || len(top.Cells) < 3 {
		t.Errorf("top hit %+v", top)
	}
	seen := map[[3]any]bool{}
	for _, h := range r.Hits {
		k := [3]any{h.Doc, h.Start, h.End}
		if seen[k] {
			t.Errorf("hit %v twice", k)
		}
		seen[k] = true
		for _, c := range h.Cells {
			if c.Rank < 1 || c.Rank > ShowPerCell {
				t.Errorf("rank %d", c.Rank)
			}
		}
	}
	var found []Found
	f.get(t, "/api/find?q="+strings.ReplaceAll("FROM the fourth day you need a doctor's", " ", "+"), &found)
	if len(found) != 1 || found[0].Doc != "policies/leave" || found[0].Text != "From the fourth day you need a doctor’s" || found[0].Line != 7 {
		t.Errorf("find: %+v", found)
	}
	if code, _ := f.do(t, "GET", "/api/search?q=+", nil, true); code != 400 {
		t.Errorf("an empty search: %d", code)
	}
}

// cp is the code-point offset of quote in text (which holds it once).
func cp(t testing.TB, text, quote string) (int, int) {
	t.Helper()
	if strings.Count(text, quote) != 1 {
		t.Fatalf("%q occurs %d times", quote, strings.Count(text, quote))
	}
	s := utf8.RuneCountInString(text[:strings.Index(text, quote)])
	return s, s + utf8.RuneCountInString(quote)
}

// context32 is the 32 code points before and after [s, e) of text.
func context32(text string, s, e int) (string, string) {
	r := []rune(text)
	return string(r[max(0, s-32):s]), string(r[e:min(len(r), e+32)])
}

func (f *fixture) docText(t testing.TB, id string) string {
	for _, d := range f.docs {
		if d.ID == id {
			return d.Text
		}
	}
	t.Fatalf("no doc %s", id)
	return ""
}

// TestEditAndSave: a new question with a passage of each of two documents
// (one grade 2), an existing question marked unanswerable with a note, and
// a grade changed; saving writes exactly those rows — every other line
// byte for byte, new passages with offsets, quote and context computed here
// from the quoted text — and the anchor record; the file then checks clean
// (the rules bench run uses).
func TestEditAndSave(t *testing.T) {
	f := newFixture(t, "", "labels.jsonl", "")
	orig, _ := os.ReadFile(f.labels)
	leave, pw := f.docText(t, "policies/leave"), f.docText(t, "it/passwords")
	s1, e1 := cp(t, leave, "Parental leave is 16 weeks at full pay")
	s2, e2 := cp(t, pw, "ask the service desk for one")
	var v rowView
	f.post(t, "/api/question", rowEdit{ID: "baby", New: true, Question: "how long is parental leave", Slice: "plain",
		Passages: []passageEdit{{Doc: "policies/leave", Start: s1, End: e1, Grade: 2}, {Doc: "it/passwords", Start: s2, End: e2, Grade: 1}}}, &v)
	if v.Status != "labelled" || len(v.Passages) != 2 || !v.Passages[0].Placed || v.Passages[1].Text != "ask the service desk for one" {
		t.Fatalf("%+v", v)
	}
	f.post(t, "/api/question", rowEdit{ID: "parking", Question: "Where can I park?", Slice: "plain", Unanswerable: true, Note: "asked <twice> & \"quoted\""}, &v)
	if v.Status != "unanswerable" {
		t.Errorf("parking: %+v", v)
	}
	zero := 0
	f.post(t, "/api/question", rowEdit{ID: "sick-note", Question: "when do i need a note from the doctor", Slice: "plain",
		Passages: []passageEdit{{Orig: &zero, Grade: 3}}}, &v)
	if got, _ := os.ReadFile(f.labels); !bytes.Equal(got, orig) {
		t.Fatal("an edit wrote the file before Save")
	}
	var res saveResult
	f.post(t, "/api/save", struct{}{}, &res)
	if !res.Recorded || res.Rows != 5 || len(res.Problems) != 0 {
		t.Errorf("save: %+v", res)
	}
	p1, x1 := context32(leave, s1, e1)
	p2, x2 := context32(pw, s2, e2)
	lines := strings.SplitAfter(string(orig), "\n")
	lines[1] = strings.Replace(lines[1], `"text": "From the fourth day you need a doctor’s note."}`, `"text": "From the fourth day you need a doctor’s note.", "grade": 3}`, 1)
	lines[3] = `{"id": "parking", "question": "Where can I park?", "gold_spans": [], "kind": "plain", "note": "asked <twice> & \"quoted\"", "unanswerable": true}` + "\n"
	want := strings.Join(lines, "") + fmt.Sprintf(`{"id": "baby", "question": "how long is parental leave", "gold_spans": [{"doc": "policies/leave", "start": %d, "end": %d, "text": "Parental leave is 16 weeks at full pay", "prefix": %s, "suffix": %s, "grade": 2}, {"doc": "it/passwords", "start": %d, "end": %d, "text": "ask the service desk for one", "prefix": %s, "suffix": %s, "grade": 1}], "kind": "plain"}`+"\n",
		s1, e1, jsonString(p1), jsonString(x1), s2, e2, jsonString(p2), jsonString(x2))
	got, _ := os.ReadFile(f.labels)
	if string(got) != want {
		t.Errorf("saved:\n%s\nwant\n%s", got, want)
	}
	r, err := labels.Check(f.labels, f.docs, labels.DefaultOptions())
	if err != nil || len(r.Problems) != 0 || r.Record == nil || r.LabelsEdited {
		t.Errorf("the saved file: %v, record %+v, edited since %v", r.Err(), r.Record, r.LabelsEdited)
	}
	if _, err := spans.Read(f.labels, f.docs); err != nil {
		t.Errorf("bench run's reader refuses the saved file: %v", err)
	}
	if f.srv.Dirty() != 0 {
		t.Error("dirty after save")
	}
	f.post(t, "/api/save", struct{}{}, &res)
	if again, _ := os.ReadFile(f.labels); !bytes.Equal(again, got) {
		t.Error("a second save changed the file")
	}
}

// jsonString is s as labels write it: JSON without HTML escaping.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// TestEditRefused: an edit the labels check would refuse is not made and
// says why — a span outside its document, a document the corpus lacks, an
// unknown query, a duplicate id, a relevant passage in a question marked
// unanswerable, the same passage twice — and Save writes nothing.
func TestEditRefused(t *testing.T) {
	f := newFixture(t, "", "labels.jsonl", "")
	orig, _ := os.ReadFile(f.labels)
	zero := 0
	for _, c := range []struct {
		e    rowEdit
		want string
	}{
		{rowEdit{ID: "x", New: true, Question: "q", Passages: []passageEdit{{Doc: "policies/leave", Start: 5, End: 99999, Grade: 1}}}, "span [5, 99999)"},
		{rowEdit{ID: "x", New: true, Question: "q", Passages: []passageEdit{{Doc: "nope", Start: 0, End: 3, Grade: 1}}}, `no document "nope"`},
		{rowEdit{ID: "nope", Question: "q"}, `no query "nope"`},
		{rowEdit{ID: "parking", New: true, Question: "q"}, `query "parking" is already in`},
		{rowEdit{ID: "carry-over", Question: "q", Unanswerable: true, Passages: []passageEdit{{Orig: &zero, Grade: 1}}}, "marked unanswerable"},
		{rowEdit{ID: "carry-over", Question: "q", Passages: []passageEdit{{Orig: &zero, Grade: 1}, {Doc: "policies/leave", Start: 63, End: 139, Grade: 1}}}, "given twice"},
	} {
		code, b := f.do(t, "POST", "/api/question", c.e, true)
		var resp struct{ Error string }
		json.Unmarshal(b, &resp)
		if code != 400 || !strings.Contains(resp.Error, c.want) {
			t.Errorf("%+v: %d %s, want 400 with %q", c.e, code, b, c.want)
		}
	}
	var res saveResult
	f.post(t, "/api/save", struct{}{}, &res)
	if got, _ := os.ReadFile(f.labels); !bytes.Equal(got, orig) {
		t.Errorf("refused edits reached the file:\n%s", got)
	}
	var v rowView
	f.get(t, "/api/question?id=carry-over", &v)
	if v.Question != "How many holiday days can I take into next year?" || len(v.Passages) != 1 {
		t.Errorf("a refused edit stayed: %+v", v)
	}
}

// TestSecondSession: a second session on the same labels file is
// read-only (it says who holds the lock) and refuses every write with 409,
// while the first writes; once the first ends, a new session may write.
func TestSecondSession(t *testing.T) {
	f := newFixture(t, "", "labels.jsonl", "")
	g := newFixture(t, f.dir, "labels.jsonl", "")
	if f.srv.ReadOnly() != "" || !strings.Contains(g.srv.ReadOnly(), fmt.Sprintf("(process %d) has %s open: this session is read-only", os.Getpid(), f.labels)) {
		t.Fatalf("first %q, second %q", f.srv.ReadOnly(), g.srv.ReadOnly())
	}
	var st stateView
	g.get(t, "/api/state", &st)
	if st.ReadOnly == "" {
		t.Error("state does not say read-only")
	}
	for _, p := range []struct {
		path string
		body any
	}{{"/api/save", struct{}{}}, {"/api/question", rowEdit{ID: "parking", Question: "x"}}, {"/api/delete", map[string]string{"id": "parking"}},
		{"/api/repair", map[string]string{"id": "parking", "field": "x"}}, {"/api/judge", map[string]any{"id": "parking", "doc": "evil", "start": 0, "end": 3, "grade": 0}}} {
		if code, b := g.do(t, "POST", p.path, p.body, true); code != http.StatusConflict {
			t.Errorf("read-only %s: %d %s, want 409", p.path, code, b)
		}
	}
	f.post(t, "/api/question", rowEdit{ID: "parking", Question: "Where can I park my car?", Slice: "plain"}, nil)
	f.post(t, "/api/save", struct{}{}, nil)
	f.srv.Close()
	h := newFixture(t, f.dir, "labels.jsonl", "")
	if h.srv.ReadOnly() != "" {
		t.Errorf("after the first ended: %q", h.srv.ReadOnly())
	}
	var v rowView
	h.get(t, "/api/question?id=parking", &v)
	if v.Question != "Where can I park my car?" {
		t.Errorf("the first session's save: %+v", v)
	}
}

// TestStaleRepair: a labels file with a moved label (a line inserted above
// it) and a changed one (a word edited) lists both as stale — the moved one
// with its sure repair, the changed one with the nearest passage to look
// at — and accepting the repair writes, once saved, exactly what bench
// labels check --fix writes (labels.Fix of the file's check, which holds
// the one sure repair).
func TestStaleRepair(t *testing.T) {
	f := newFixture(t, "", "stale.jsonl", "")
	var stale []problemView
	f.get(t, "/api/list?name=stale", &stale)
	if len(stale) != 2 {
		t.Fatalf("stale: %+v", stale)
	}
	moved, changed := stale[0], stale[1]
	if moved.ID != "carry-over" || moved.Status != "moved" || moved.Repair != "offsets [53, 129) → [63, 139)" || moved.Suggest != nil {
		t.Errorf("moved: %+v", moved)
	}
	if changed.ID != "sick-note" || changed.Status != "changed" || changed.Repair != "" || changed.Suggest == nil ||
		changed.Suggest.Text != "From the fourth day you need a doctor’s note." || changed.Suggest.Start != 204 {
		t.Errorf("changed: %+v %+v", changed, changed.Suggest)
	}
	var all []rowItem
	f.get(t, "/api/list?name=all", &all)
	if all[0].Status != "stale" || all[1].Status != "stale" || all[2].Status != "labelled" {
		t.Errorf("all: %+v", all)
	}
	if code, _ := f.do(t, "POST", "/api/repair", map[string]string{"id": "sick-note", "field": "gold_spans[0]"}, true); code != 400 {
		t.Errorf("a repair of a changed label: %d, want 400 (none is sure)", code)
	}
	var v rowView
	f.post(t, "/api/repair", map[string]string{"id": "carry-over", "field": "gold_spans[0]"}, &v)
	if v.Status != "labelled" || len(v.Problems) != 0 || v.Passages[0].Start != 63 {
		t.Errorf("after the repair: %+v", v)
	}
	f.post(t, "/api/save", struct{}{}, nil)

	ref := filepath.Join(t.TempDir(), "stale.jsonl")
	os.WriteFile(ref, readAll(t, filepath.Join("testdata", "stale.jsonl")), 0o644)
	r, err := labels.Check(ref, f.docs, labels.DefaultOptions())
	if err != nil || r.Fixable() != 1 {
		t.Fatal(err, r.Fixable())
	}
	fixed := filepath.Join(t.TempDir(), "fixed.jsonl")
	if _, err := labels.Fix(r, f.docs, fixed, labels.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if got, want := readAll(t, f.labels), readAll(t, fixed); !bytes.Equal(got, want) {
		t.Errorf("accepted and saved:\n%s\nbench labels check --fix writes:\n%s", got, want)
	}
	f.get(t, "/api/list?name=stale", &stale)
	if len(stale) != 1 || stale[0].ID != "sick-note" {
		t.Errorf("stale after the repair: %+v", stale)
	}
	// The person edits the changed one: the stale passage may stay while
	// the row is edited (the edit brings no problem of its own); replacing
	// it with the document's passage makes the file clean.
	zero := 0
	f.post(t, "/api/question", rowEdit{ID: "sick-note", Question: "when do i need a note from the doctor", Slice: "plain", Note: "re-read",
		Passages: []passageEdit{{Orig: &zero, Grade: 1}}}, &v)
	f.post(t, "/api/question", rowEdit{ID: "sick-note", Question: "when do i need a note from the doctor", Slice: "plain", Note: "re-read",
		Passages: []passageEdit{{Doc: "policies/leave", Start: changed.Suggest.Start, End: changed.Suggest.End, Grade: 1}}}, &v)
	var res saveResult
	f.post(t, "/api/save", struct{}{}, &res)
	if !res.Recorded || len(res.Problems) != 0 {
		t.Errorf("after the person's edit: %+v", res)
	}
}

func readAll(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runSweep runs bench run's sweep on the copy dir (labels.jsonl) and
// returns its output folder.
func runSweep(t testing.TB, dir string) string {
	t.Helper()
	cfg, _ := load(t, dir)
	cfg.Output = filepath.Join(dir, "out")
	if _, err := sweep.Run(context.Background(), cfg, sweep.Options{NoHistory: true}); err != nil {
		t.Fatal(err)
	}
	return cfg.Output
}

// TestMissedAndPool: with the last run's output folder, the missed list
// holds each gold passage a cell's top prompt_k did not cover, once, with
// every cell that missed it (as misses.jsonl has them) and each returned
// chunk placed in its document; the pool list holds labels.Pool's pairs
// at depth 10; judging a pooled passage relevant (r) adds it to the
// question as a gold passage, not relevant (x) as a grade-0 judgement,
// and either leaves the pool.
func TestMissedAndPool(t *testing.T) {
	dir := testenv.CopyTree(t, "testdata")
	out := runSweep(t, dir)
	f := newFixture(t, dir, "labels.jsonl", out)
	var missed []missRow
	f.get(t, "/api/list?name=missed", &missed)
	var want int
	for _, line := range bytes.Split(bytes.TrimSpace(readAll(t, filepath.Join(out, "misses.jsonl"))), []byte("\n")) {
		var m results.SpanMiss
		json.Unmarshal(line, &m)
		want++
		found := false
		for _, r := range missed {
			for _, c := range r.Cells {
				if r.Query == m.QueryID && r.Doc == m.Doc && r.Start == m.Start && c.Cell == m.Cell && len(c.Returned) == len(m.Returned) {
					found = true
					for i, h := range c.Returned {
						if h.Chunk != m.Returned[i].ID || h.Doc == "" || h.End <= h.Start {
							t.Errorf("%s %s: returned %+v", m.Cell, m.QueryID, h)
						}
					}
				}
			}
		}
		if !found {
			t.Errorf("miss %s/%s [%d, %d) not listed", m.Cell, m.QueryID, m.Start, m.End)
		}
	}
	n := 0
	for _, r := range missed {
		n += len(r.Cells)
	}
	if n != want || want == 0 {
		t.Errorf("%d misses listed, misses.jsonl has %d", n, want)
	}
	var pool []poolPair
	f.get(t, "/api/list?name=pool", &pool)
	runs, _ := labels.ReadPoolRuns(out, f.docs)
	qs, _ := spans.Read(f.labels, f.docs)
	items, _ := labels.Pool(qs, f.docs, runs, labels.DefaultPoolDepth)
	pairs := 0
	for _, it := range items {
		pairs += len(it.Queries)
	}
	if len(pool) != pairs || pairs < 4 {
		t.Fatalf("pool: %d pairs, labels.Pool has %d", len(pool), pairs)
	}
	first, second := pool[0], pool[1]
	var v rowView
	f.post(t, "/api/judge", map[string]any{"id": first.Query, "doc": first.Doc, "start": first.Start, "end": first.End, "grade": 1}, &v)
	if last := v.Passages[len(v.Passages)-1]; last.Doc != first.Doc || last.Start != first.Start || last.Grade != 1 {
		t.Errorf("judged relevant: %+v", v.Passages)
	}
	f.post(t, "/api/judge", map[string]any{"id": second.Query, "doc": second.Doc, "start": second.Start, "end": second.End, "grade": 0}, &v)
	if last := v.Passages[len(v.Passages)-1]; last.Grade != 0 || last.Start != second.Start {
		t.Errorf("judged not relevant: %+v", v.Passages)
	}
	var after []poolPair
	f.get(t, "/api/list?name=pool", &after)
	for _, p := range after {
		if p.Query == first.Query && p.Doc == first.Doc && p.Start == first.Start || p.Query == second.Query && p.Doc == second.Doc && p.Start == second.Start {
			t.Errorf("judged, still pooled: %+v", p)
		}
	}
	if len(after) >= len(pool)-1 {
		t.Errorf("pool %d → %d pairs", len(pool), len(after))
	}
}

// TestConcurrent: searches, reads and edits from many clients at once
// (run under -race by scripts/test.sh) leave one consistent file.
func TestConcurrent(t *testing.T) {
	f := newFixture(t, "", "labels.jsonl", "")
	leave := f.docText(t, "policies/leave")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r map[string]any
			f.get(t, "/api/search?q=leave+days", &r)
			f.get(t, "/api/state", &r)
			s, e := cp(t, leave, "25 days of annual leave")
			code, b := f.do(t, "POST", "/api/question", rowEdit{ID: fmt.Sprintf("c%d", i), New: true, Question: "annual leave",
				Passages: []passageEdit{{Doc: "policies/leave", Start: s, End: e, Grade: 1}}}, true)
			if code != 200 {
				t.Errorf("edit %d: %d %s", i, code, b)
			}
			var items []rowItem
			f.get(t, "/api/list?name=all", &items)
		}()
	}
	wg.Wait()
	f.post(t, "/api/save", struct{}{}, nil)
	r, err := labels.Check(f.labels, f.docs, labels.DefaultOptions())
	if err != nil || r.Queries != 12 || len(r.Problems) != 0 {
		t.Errorf("%v: %d queries, %v", err, r.Queries, r.Err())
	}
}

// killDirEnv, in the child of TestKillDuringSave, is the folder whose
// labels the child edits and saves, dying halfway through the write.
const killDirEnv = "RAGBENCH_TEST_WORKBENCH_KILL"

// TestKillDuringSaveChild is the child: it edits the labels of
// $RAGBENCH_TEST_WORKBENCH_KILL, saves, and halfway through writing them
// says so on stdout and waits to be killed.
func TestKillDuringSaveChild(t *testing.T) {
	dir := os.Getenv(killDirEnv)
	if dir == "" {
		t.Skip("run by TestKillDuringSave")
	}
	f := newFixture(t, dir, "labels.jsonl", "")
	testHookSave = func() {
		fmt.Println("SAVING")
		select {} // killed here
	}
	f.post(t, "/api/question", rowEdit{ID: "parking", Question: "Where can I park my bike?", Slice: "plain", Note: strings.Repeat("long ", 20000)}, nil)
	f.post(t, "/api/save", struct{}{}, nil)
	t.Fatal("the save returned")
}

// TestKillDuringSave: a session killed (SIGKILL) while it writes the labels
// leaves the previous file whole, byte for byte — the new content goes to a
// pending file beside it, renamed over it only once complete — and its
// lock is released: the next session writes.
func TestKillDuringSave(t *testing.T) {
	dir := testenv.CopyTree(t, "testdata")
	labelsPath := filepath.Join(dir, "labels.jsonl")
	orig := readAll(t, labelsPath)
	child := exec.Command(os.Args[0], "-test.run=^TestKillDuringSaveChild$", "-test.v")
	child.Env = append(os.Environ(), killDirEnv+"="+dir)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	child.Stderr = &stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	saving := false
	for sc.Scan() {
		if sc.Text() == "SAVING" {
			saving = true
			break
		}
	}
	if !saving {
		child.Wait()
		t.Fatalf("the child never got to its save:\n%s", stderr.String())
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	if got := readAll(t, labelsPath); !bytes.Equal(got, orig) {
		t.Fatalf("after a kill during the save the labels are:\n%.300s", got)
	}
	pending, _ := filepath.Glob(filepath.Join(dir, ".labels.jsonl*"))
	t.Logf("left by the kill: %v (a pending file, never read as the labels)", pending)
	f := newFixture(t, dir, "labels.jsonl", "")
	if f.srv.ReadOnly() != "" {
		t.Fatalf("the killed session's lock is held: %s", f.srv.ReadOnly())
	}
	f.post(t, "/api/question", rowEdit{ID: "parking", Question: "Where can I park my bike?", Slice: "plain"}, nil)
	var res saveResult
	f.post(t, "/api/save", struct{}{}, &res)
	if got := string(readAll(t, labelsPath)); !strings.Contains(got, "my bike?") {
		t.Errorf("the next session's save: %s", got)
	}
}

// TestSearchDense: with a dense retriever whose model is present, a
// hybrid of it and BM25, and a dense retriever whose model is not, the
// first two are searched beside BM25 — their cells mark the pooled hits —
// and the third is listed as skipped, saying why.
func TestSearchDense(t *testing.T) {
	model := testenv.Model(t, "all-minilm-l6-v2")
	dir := testenv.CopyTree(t, "testdata")
	cfgText := readAll(t, filepath.Join(dir, "bench.yaml"))
	i := bytes.Index(cfgText, []byte("retrievers:"))
	j := bytes.Index(cfgText, []byte("k: [1"))
	cfgText = append(cfgText[:i:i], append([]byte(fmt.Sprintf(`retrievers:
  - name: bm25
    type: bm25
  - name: dense
    type: dense
    model: %s
  - name: gone
    type: dense
    model: no-such-model
  - name: mix
    type: hybrid
    inputs: [bm25, dense]
    fusion: rrf
`, model)), cfgText[j:]...)...)
	os.WriteFile(filepath.Join(dir, "bench.yaml"), cfgText, 0o644)
	f := newFixture(t, dir, "labels.jsonl", "")
	var st stateView
	f.get(t, "/api/state", &st)
	states := map[string]searchCell{}
	for _, c := range st.Cells {
		states[c.Name] = c
	}
	if c := states["fixed-12/dense"]; c.State == stateFailed && strings.Contains(c.Note, "ONNX Runtime") && os.Getenv("CI") != "true" {
		t.Skipf("ONNX Runtime not installed: %s", c.Note)
	}
	for _, name := range []string{"fixed-12/bm25", "fixed-12/dense", "fixed-12/mix", "fixed-12o4/dense"} {
		if states[name].State != stateReady {
			t.Errorf("%s: %+v", name, states[name])
		}
	}
	if c := states["fixed-12/gone"]; c.State != stateSkipped || !strings.Contains(c.Note, "model no-such-model not present") {
		t.Errorf("gone: %+v", c)
	}
	var r struct {
		Hits []Hit `json:"hits"`
	}
	f.get(t, "/api/search?q=who+can+unlock+my+account", &r)
	kinds := map[string]bool{}
	for _, h := range r.Hits {
		for _, c := range h.Cells {
			kinds[c.Cell[strings.Index(c.Cell, "/")+1:]] = true
		}
	}
	if !kinds["bm25"] || !kinds["dense"] || !kinds["mix"] || kinds["gone"] {
		t.Errorf("the cells that returned hits: %v", kinds)
	}
}

// TestSaveConflict: when another program writes the labels file during a
// session (the lock keeps out other bench label sessions only), saving does
// not overwrite it: the session's labels go to ConflictPath, and the save
// says so.
func TestSaveConflict(t *testing.T) {
	f := newFixture(t, "", "labels.jsonl", "")
	theirs := append(readAll(t, f.labels), []byte(`{"id": "theirs", "question": "added elsewhere", "gold_spans": []}`+"\n")...)
	os.WriteFile(f.labels, theirs, 0o644)
	f.post(t, "/api/question", rowEdit{ID: "mine", New: true, Question: "added here"}, nil)
	var res saveResult
	f.post(t, "/api/save", struct{}{}, &res)
	if res.Path != ConflictPath(f.labels) || !strings.Contains(res.Conflict, "changed on disk since this session read it") {
		t.Errorf("save: %+v", res)
	}
	if got := readAll(t, f.labels); !bytes.Equal(got, theirs) {
		t.Errorf("the other program's file was overwritten:\n%s", got)
	}
	if mine := string(readAll(t, res.Path)); !strings.Contains(mine, `"id": "mine"`) || strings.Contains(mine, "theirs") {
		t.Errorf("the session's labels:\n%s", mine)
	}
}

// TestUnreadableRows: a row that does not parse is kept as written, listed
// as stale by its line, and the rest is edited and saved around it.
func TestUnreadableRows(t *testing.T) {
	dir := testenv.CopyTree(t, "testdata")
	orig := append(readAll(t, filepath.Join(dir, "labels.jsonl")), []byte(`{"id": "broken", "gold_spans": [{"doc": 3}]}`+"\n")...)
	os.WriteFile(filepath.Join(dir, "labels.jsonl"), orig, 0o644)
	f := newFixture(t, dir, "labels.jsonl", "")
	var stale []problemView
	f.get(t, "/api/list?name=stale", &stale)
	if len(stale) != 1 || stale[0].Line != 5 || stale[0].ID != "" || !strings.Contains(stale[0].Message, "must be a string") {
		t.Fatalf("stale: %+v", stale)
	}
	var st stateView
	f.get(t, "/api/state", &st)
	if !strings.Contains(st.ReadError, "labels.jsonl:5:") {
		t.Errorf("read error %q", st.ReadError)
	}
	f.post(t, "/api/question", rowEdit{ID: "parking", Question: "Where can I park?", Slice: "plain", Note: "n"}, nil)
	f.post(t, "/api/save", struct{}{}, nil)
	got := string(readAll(t, f.labels))
	if !strings.HasSuffix(got, `{"id": "broken", "gold_spans": [{"doc": 3}]}`+"\n") || !strings.Contains(got, `"note": "n"`) {
		t.Errorf("saved:\n%s", got)
	}
}

// TestDeleteGroupsDocs: the document list gives every id with its length;
// two passages given one group are written as alternatives (any_of) and
// check as such; a deleted question leaves the file at the next save; an
// unknown one is refused.
func TestDeleteGroupsDocs(t *testing.T) {
	f := newFixture(t, "", "labels.jsonl", "")
	var docs []struct {
		ID  string
		Len int
	}
	f.get(t, "/api/docs", &docs)
	if len(docs) != 3 || docs[0].ID != "evil" || docs[2].ID != "policies/leave" || docs[2].Len != utf8.RuneCountInString(f.docText(t, "policies/leave")) {
		t.Errorf("docs %+v", docs)
	}
	pw := f.docText(t, "it/passwords")
	s1, e1 := cp(t, pw, "Passwords expire after 90 days.")
	s2, e2 := cp(t, pw, "it must differ from the last five")
	var v rowView
	f.post(t, "/api/question", rowEdit{ID: "expiry", New: true, Question: "when does my password expire",
		Passages: []passageEdit{{Doc: "it/passwords", Start: s1, End: e1, Grade: 1, Group: 1}, {Doc: "it/passwords", Start: s2, End: e2, Grade: 1, Group: 1}}}, &v)
	if v.Passages[0].Field != "gold_spans[0].any_of[0]" || v.Passages[1].Field != "gold_spans[0].any_of[1]" {
		t.Errorf("fields %+v", v.Passages)
	}
	var code int
	var b []byte
	if code, b = f.do(t, "POST", "/api/delete", map[string]string{"id": "nope"}, true); code != 400 {
		t.Errorf("delete nope: %d %s", code, b)
	}
	f.post(t, "/api/delete", map[string]string{"id": "sick-note"}, nil)
	f.post(t, "/api/save", struct{}{}, nil)
	got := string(readAll(t, f.labels))
	if strings.Contains(got, "sick-note") || !strings.Contains(got, `"gold_spans": [{"any_of": [{"doc": "it/passwords", "start": 13, "end": 44, "text": "Passwords expire after 90 days."`) {
		t.Errorf("saved:\n%s", got)
	}
	r, err := labels.Check(f.labels, f.docs, labels.DefaultOptions())
	if err != nil || r.Groups != 1 || len(r.Problems) != 0 || r.Queries != 4 {
		t.Errorf("%v: %d groups, %d queries, %v", err, r.Groups, r.Queries, r.Err())
	}
}
