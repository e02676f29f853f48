package workbench

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"time"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/labels"
)

//go:embed assets
var assets embed.FS

// Options configure a workbench session.
type Options struct {
	// Config is the bench run config (config.Load): its retrievers and
	// chunkings are searched, its cache folder holds their indexes.
	Config *config.Config
	// Docs is the config's corpus (corpus.Load of dataset.corpus).
	Docs []corpus.Document
	// Labels is the JSONL span-labels file edited (it need not exist).
	Labels string
	// Results is the output folder of the config's last run (results.json,
	// runs/, misses.jsonl), for the missed and pool lists; "" for none.
	Results string
	// ONNXRuntime is the ONNX Runtime library for dense and rerank
	// retrievers ("" = $ONNXRUNTIME_LIB, else the project-local default).
	ONNXRuntime string
	// Token is the session token every request must carry; "" makes a
	// random one (NewToken).
	Token string
}

// Server is one workbench session: the labels in memory, the retrievers
// and the HTTP handler. Close it to release the labels' lock and the
// models.
type Server struct {
	token  string
	opt    Options
	st     *state
	search *searcher
	page   *template.Template
	cancel context.CancelFunc
	built  chan struct{}
}

// NewToken is a random session token: 32 bytes from crypto/rand in hex.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// New opens a session: it reads and locks the labels (read-only when
// another session holds them, ReadOnly says why), checks them, reads the
// last run when given, and starts building the retrievers in the
// background (Ready is closed when they are settled). Errors: labels that
// cannot be read or are not JSONL span labels.
func New(opt Options) (*Server, error) {
	if opt.Token == "" {
		var err error
		if opt.Token, err = NewToken(); err != nil {
			return nil, err
		}
	}
	st, err := openState(opt.Labels, opt.Docs, opt.Results)
	if err != nil {
		return nil, err
	}
	page, err := template.ParseFS(assets, "assets/index.html")
	if err != nil {
		st.close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{token: opt.Token, opt: opt, st: st, search: newSearcher(opt.Config, opt.Docs, opt.ONNXRuntime), page: page,
		cancel: cancel, built: make(chan struct{})}
	go func() {
		defer close(s.built)
		s.search.build(ctx)
	}()
	return s, nil
}

// Token is the session token.
func (s *Server) Token() string { return s.token }

// ReadOnly is why the session cannot write the labels ("" when it can).
func (s *Server) ReadOnly() string {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	return s.st.readOnlyWhy
}

// Ready is closed once every retriever is built, skipped or failed.
func (s *Server) Ready() <-chan struct{} { return s.built }

// Dirty counts the edits not saved yet.
func (s *Server) Dirty() int {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	return s.st.dirty
}

// Close stops the build, closes the retrievers and releases the lock.
func (s *Server) Close() {
	s.cancel()
	<-s.built
	s.search.close()
	s.st.close()
}

// Handler is the session's HTTP handler. Every request must carry the
// session token — in the X-Bench-Token header, or as ?token= on a GET (the
// URL bench label prints) — else 403. Requests that change the labels are
// POST with a JSON body and the header (a page of another site can send
// neither); a GET of them is 405. Responses are never cached, never framed
// and run no script but the workbench's own (Content-Security-Policy).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.index)
	mux.HandleFunc("GET /static/{file}", s.static)
	mux.HandleFunc("GET /api/state", s.apiState)
	mux.HandleFunc("GET /api/list", s.apiList)
	mux.HandleFunc("GET /api/question", s.apiQuestion)
	mux.HandleFunc("GET /api/doc", s.apiDoc)
	mux.HandleFunc("GET /api/docs", s.apiDocs)
	mux.HandleFunc("GET /api/search", s.apiSearch)
	mux.HandleFunc("GET /api/find", s.apiFind)
	mux.HandleFunc("POST /api/question", s.apiEdit)
	mux.HandleFunc("POST /api/delete", s.apiDelete)
	mux.HandleFunc("POST /api/judge", s.apiJudge)
	mux.HandleFunc("POST /api/repair", s.apiRepair)
	mux.HandleFunc("POST /api/save", s.apiSave)
	return s.guard(mux)
}

// guard checks the token and sets the headers of every response.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer") // the token is in the page's URL
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		got := r.Header.Get("X-Bench-Token")
		if got == "" && r.Method == http.MethodGet {
			got = r.URL.Query().Get("token")
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
			http.Error(w, "forbidden: this workbench answers requests that carry its session token (open the URL bench label printed)", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := s.page.Execute(w, map[string]string{"Token": s.token, "Labels": s.opt.Labels}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

func (s *Server) static(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	data, err := fs.ReadFile(assets, "assets/"+path.Base(name))
	if err != nil || name == "index.html" {
		http.NotFound(w, r)
		return
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ctype)
	w.Write(data)
}

// writeJSON writes v as JSON (HTML characters escaped, as encoding/json
// does by default: a stray string is inert in any context).
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// fail writes err: 400 for a refused edit (with the check's problems), 409
// for a read-only session, 500 otherwise.
func fail(w http.ResponseWriter, err error) {
	var ee *editError
	switch {
	case errors.As(err, &ee):
		probs := ee.problems
		if probs == nil {
			probs = []problemView{}
		}
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": ee.msg, "problems": probs})
	case errors.Is(err, errReadOnly):
		writeJSON(w, http.StatusConflict, map[string]any{"error": "read-only session: the labels are not written"})
	default:
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": err.Error()})
	}
}

// decode reads a JSON body (Content-Type application/json, else 415: a
// form of another site cannot send one without a preflight; at most 16
// MiB; unknown fields refused).
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		http.Error(w, "want a JSON body (Content-Type: application/json)", http.StatusUnsupportedMediaType)
		return false
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, 16<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "bad request body: " + err.Error(), "problems": []problemView{}})
		return false
	}
	return true
}

// stateView is GET /api/state.
type stateView struct {
	Labels    string         `json:"labels"`
	Config    string         `json:"config"`
	ReadOnly  string         `json:"read_only"`
	Docs      int            `json:"docs"`
	Dirty     int            `json:"dirty"`
	Results   string         `json:"results"`
	RunError  string         `json:"run_error"`
	ReadError string         `json:"read_error"`
	Cells     []searchCell   `json:"cells"`
	Counts    map[string]int `json:"counts"`
	Slices    []string       `json:"slices"`
}

func (s *Server) apiState(w http.ResponseWriter, r *http.Request) {
	st := s.st
	st.mu.Lock()
	v := stateView{Labels: st.file.Path, Config: s.opt.Config.Name, ReadOnly: st.readOnlyWhy, Docs: len(st.docs), Dirty: st.dirty,
		Results: s.opt.Results, RunError: st.runErr, Cells: s.search.states(), Counts: map[string]int{}, Slices: st.slices()}
	if v.Slices == nil {
		v.Slices = []string{}
	}
	if st.file.ReadErr != nil {
		v.ReadError = st.file.ReadErr.Error()
	}
	for _, it := range st.rows("all") {
		v.Counts["all"]++
		v.Counts[it.Status]++
	}
	v.Counts["stale"] = len(st.checked.Problems)
	v.Counts["missed"] = len(st.misses)
	pool, err := st.pool(labels.DefaultPoolDepth)
	if err == nil {
		for _, it := range pool {
			v.Counts["pool"] += len(it.Queries)
		}
	}
	st.mu.Unlock()
	writeJSON(w, http.StatusOK, v)
}

// poolPair is one (passage, query) pair of the pool list.
type poolPair struct {
	Doc      string           `json:"doc"`
	Start    int              `json:"start"`
	End      int              `json:"end"`
	Text     string           `json:"text"`
	Returned int              `json:"returned"`
	Query    string           `json:"query"`
	Question string           `json:"question"`
	Hits     []labels.PoolHit `json:"hits"`
}

func (s *Server) apiList(w http.ResponseWriter, r *http.Request) {
	st := s.st
	st.mu.Lock()
	defer st.mu.Unlock()
	switch name := r.URL.Query().Get("name"); name {
	case "all", "unlabelled", "unanswerable", "labelled":
		writeJSON(w, http.StatusOK, st.rows(name))
	case "stale":
		writeJSON(w, http.StatusOK, st.stale())
	case "missed":
		out := st.misses
		if out == nil {
			out = []missRow{}
		}
		writeJSON(w, http.StatusOK, out)
	case "pool":
		items, err := st.pool(labels.DefaultPoolDepth)
		if err != nil {
			fail(w, err)
			return
		}
		out := []poolPair{}
		for _, it := range items {
			for _, q := range it.Queries {
				out = append(out, poolPair{Doc: it.Doc, Start: it.Start, End: it.End, Text: it.Text, Returned: it.Returned, Query: q.ID, Question: q.Question, Hits: q.Hits})
			}
		}
		writeJSON(w, http.StatusOK, out)
	default:
		http.Error(w, "unknown list "+strconv.Quote(name)+" (all, unlabelled, stale, missed, pool)", http.StatusNotFound)
	}
}

func (s *Server) apiQuestion(w http.ResponseWriter, r *http.Request) {
	st := s.st
	st.mu.Lock()
	defer st.mu.Unlock()
	row, ok := st.file.Row(r.URL.Query().Get("id"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	writeJSON(w, http.StatusOK, st.view(row))
}

// docView is GET /api/doc: a document's whole text, which the page shows
// as text (never as markup).
type docView struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
	Len   int    `json:"len"`
}

// apiDoc serves a document by its id, looked up in the corpus loaded at
// start (never joined into a path): an unknown id is 404.
func (s *Server) apiDoc(w http.ResponseWriter, r *http.Request) {
	d, ok := s.st.ix.Doc(r.URL.Query().Get("id"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	title := ""
	for _, doc := range s.opt.Docs {
		if doc.ID == d.ID {
			title = doc.Title
			break
		}
	}
	writeJSON(w, http.StatusOK, docView{ID: d.ID, Title: title, Text: d.Text, Len: d.Len()})
}

func (s *Server) apiDocs(w http.ResponseWriter, r *http.Request) {
	type docItem struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		Len   int    `json:"len"`
	}
	out := make([]docItem, 0, len(s.opt.Docs))
	for _, d := range s.st.ix.Docs() {
		out = append(out, docItem{ID: d.ID, Len: d.Len()})
	}
	for i := range out {
		out[i].Title = s.opt.Docs[i].Title
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) apiSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Minute)
	defer cancel()
	hits, notes, err := s.search.search(ctx, q)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": err.Error()})
		return
	}
	if notes == nil {
		notes = []string{}
	}
	for i := range hits {
		if d, ok := s.st.ix.Doc(hits[i].Doc); ok {
			if rg, err := d.ByCodePoints(hits[i].Start, hits[i].End); err == nil {
				hits[i].Text = d.Slice(rg)
			}
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"hits": hits, "notes": notes, "cells": s.search.states()})
}

func (s *Server) apiFind(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, findText(s.st.ix, r.URL.Query().Get("q"), 50))
}

// change is the one shape of the endpoints that change the labels: r's
// body decoded into a Req, then, holding the state's lock, do's value
// written as JSON (200) or its error (fail).
func change[Req, V any](s *Server, w http.ResponseWriter, r *http.Request, do func(Req) (V, error)) {
	var req Req
	if !decode(w, r, &req) {
		return
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	v, err := do(req)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) apiEdit(w http.ResponseWriter, r *http.Request) {
	change(s, w, r, s.st.edit)
}

func (s *Server) apiDelete(w http.ResponseWriter, r *http.Request) {
	type del struct {
		ID string `json:"id"`
	}
	change(s, w, r, func(req del) (any, error) {
		if err := s.st.deleteRow(req.ID); err != nil {
			return nil, err
		}
		return map[string]any{"deleted": req.ID}, nil
	})
}

func (s *Server) apiJudge(w http.ResponseWriter, r *http.Request) {
	type judge struct {
		ID    string `json:"id"`
		Doc   string `json:"doc"`
		Start int    `json:"start"`
		End   int    `json:"end"`
		Grade int    `json:"grade"`
	}
	change(s, w, r, func(req judge) (any, error) {
		return s.st.judge(req.ID, req.Doc, req.Start, req.End, req.Grade)
	})
}

func (s *Server) apiRepair(w http.ResponseWriter, r *http.Request) {
	type repair struct {
		ID    string `json:"id"`
		Field string `json:"field"`
	}
	change(s, w, r, func(req repair) (any, error) { return s.st.repair(req.ID, req.Field) })
}

func (s *Server) apiSave(w http.ResponseWriter, r *http.Request) {
	change(s, w, r, func(struct{}) (any, error) { return s.st.save() })
}

// URL is the address to open for a listener at addr (host:port): with the
// token, as bench label prints it.
func (s *Server) URL(addr string) string {
	return fmt.Sprintf("http://%s/?token=%s", addr, s.token)
}
