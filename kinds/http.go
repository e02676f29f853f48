package kinds

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ragbench/ragbench/internal/fileutil"
	"github.com/ragbench/ragbench/internal/hashkey"
	"github.com/ragbench/ragbench/internal/redaction"
	"github.com/ragbench/ragbench/internal/retry"
	"github.com/ragbench/ragbench/passages"
	"github.com/ragbench/ragbench/retrievers"
	"github.com/ragbench/ragbench/retrievers/engine"
)

// HTTP is a type http retriever: the user's retriever service, asked once
// per query over HTTP (docs/pipelines.md, "The HTTP contract"): POST
// {"qid", "query", "k"} as JSON to URL, answer 200 with {"results": [...]}
// (passages as in a passage run, at most k). Retries, backoff and the
// redaction of credentials are the engine client's (internal/retry,
// internal/redaction). Credentials are only environment variable names
// (BearerEnv, HeadersEnv), read when the cell starts; no value reaches a
// file, a message or the cache key. With Version, each answer is cached
// under the version and the request: same version + same request = same
// answer.
type HTTP struct {
	// URL is the service's address, http or https, without credentials
	// (in userinfo or the query: it is written to results.json) or
	// fragment.
	URL string `yaml:"url" json:"url,omitempty"`
	// Version names the service's behaviour for the cache ("" = no cache).
	Version string `yaml:"version" json:"version,omitempty"`
	// K is how many results each request asks for (default: the cell's
	// search depth, what built-in retrievers are asked for).
	K int `yaml:"k" json:"k,omitempty"`
	// Client is the timeout, backoff, concurrency and retries, as an
	// engine's.
	Client `yaml:",inline"`
	// OnQueryError is "" (fail: the run stops) or "miss" (the query
	// scores as an empty list, counted; the cell is not cached).
	OnQueryError string `yaml:"on_query_error" json:"on_query_error,omitempty"`
	// BearerEnv names the variable whose value is sent as
	// "Authorization: Bearer VALUE"; HeadersEnv maps a header to the
	// variable holding its value.
	BearerEnv  string            `yaml:"bearer_env" json:"bearer_env,omitempty"`
	HeadersEnv map[string]string `yaml:"headers_env" json:"headers_env,omitempty"`
	// MaxAnswerBytes bounds an answer's body (default
	// DefaultMaxAnswerBytes): a larger one is a query error, read no
	// further.
	MaxAnswerBytes int64 `yaml:"max_answer_bytes" json:"max_answer_bytes,omitempty"`
	// MaxUnmapped is the highest share of the results that may be text
	// found nowhere, or at several places, in the corpus
	// (passages.DefaultMaxUnmapped when absent); above it the sweep fails.
	MaxUnmapped *float64 `yaml:"max_unmapped" json:"max_unmapped,omitempty"`
}

// DefaultMaxAnswerBytes is the default of max_answer_bytes: 8 MiB.
const DefaultMaxAnswerBytes = 8 << 20

var (
	envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	headerRE  = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
)

// Check checks the URL, the client's settings as the engines' are
// (checkClient: on_query_error, retries, timeout, backoff), the counts, the
// credential variables' names and the limits.
func (h *HTTP) Check(c Checker) {
	c.Only("url", "version", "k", "timeout", "backoff", "concurrency", "retries", "on_query_error", "bearer_env", "headers_env", "max_answer_bytes", "max_unmapped")
	h.checkURL(c)
	c.Explicit("k", h.K == 0, "k 0: must be ≥ 1; remove the line to ask for the cell's search depth")
	c.Explicit("concurrency", h.Concurrency == 0, "concurrency 0: must be ≥ 1; remove the line to use the default (%d)", engine.DefaultConcurrency)
	c.Explicit("max_answer_bytes", h.MaxAnswerBytes == 0, "max_answer_bytes 0: must be ≥ 1; remove the line to use the default (%d)", DefaultMaxAnswerBytes)
	for _, n := range []struct {
		key string
		v   int64
	}{{"k", int64(h.K)}, {"concurrency", int64(h.Concurrency)}, {"max_answer_bytes", h.MaxAnswerBytes}} {
		if n.v < 0 {
			c.Bad(n.key, "%d: must be ≥ 1", n.v)
		}
	}
	checkClient(c, &h.OnQueryError, &h.Client)
	if *h.Retries < 0 {
		c.Bad("retries", "%d: must be ≥ 0 (0: no retry)", *h.Retries)
	}
	if v, err := time.ParseDuration(h.Backoff); err == nil && v < 0 {
		c.Bad("backoff", "%v must be ≥ 0", v)
	}
	if h.BearerEnv != "" && !envNameRE.MatchString(h.BearerEnv) {
		c.Bad("bearer_env", "not an environment variable name (letters, digits, '_'; not shown, in case it is the token itself): give the variable's name, never its value")
	}
	for _, name := range slices.Sorted(maps.Keys(h.HeadersEnv)) {
		v := h.HeadersEnv[name]
		switch {
		case !headerRE.MatchString(name):
			c.Bad("headers_env", "%q is not an HTTP header name", name)
		case strings.EqualFold(name, "Content-Type"):
			c.Bad("headers_env", "Content-Type is ragbench's (application/json)")
		case strings.EqualFold(name, "Authorization") && h.BearerEnv != "":
			c.Bad("headers_env", "Authorization is set by bearer_env: give one of the two")
		case !envNameRE.MatchString(v):
			c.Bad("headers_env", "header %s: not an environment variable name (letters, digits, '_'; not shown, in case it is the value itself): give the variable's name, never its value", name)
		}
	}
	checkMaxUnmapped(c, h.MaxUnmapped)
}

// checkURL requires an http or https URL without credentials (they would
// reach results.json; the query string must not hold any either) or
// fragment.
func (h *HTTP) checkURL(c Checker) {
	if h.URL == "" {
		c.Bad("url", "missing: the service's address (http://127.0.0.1:8750/search)")
		return
	}
	u, err := url.Parse(h.URL)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		c.Bad("url", "want an http or https URL with a host, e.g. http://127.0.0.1:8750/search")
	case u.User != nil:
		c.Bad("url", "credentials in the URL are refused (they would be written to results.json): name environment variables in bearer_env or headers_env")
	case u.Fragment != "":
		c.Bad("url", "a fragment is never sent: remove it")
	}
}

// Describe is report.md's summary: the version and what is asked (no URL,
// no credential).
func (h *HTTP) Describe() string {
	parts := []string{"retriever service"}
	if h.Version != "" {
		parts = append(parts, "version "+h.Version)
	} else {
		parts = append(parts, "no version (not cached)")
	}
	if h.K > 0 {
		parts = append(parts, fmt.Sprintf("k %d", h.K))
	}
	parts = append(parts, fmt.Sprintf("%d in flight", cmp.Or(h.Concurrency, engine.DefaultConcurrency)))
	return strings.Join(parts, ", ")
}

// NeedsRuntime is false.
func (h *HTTP) NeedsRuntime() bool { return false }

// Cacheable is false: the kind caches each answer itself, keyed by
// Version and the request, and asks for the others.
func (h *HTTP) Cacheable() bool { return false }

// OwnPassages marks the kind (PassageKind).
func (h *HTTP) OwnPassages() bool { return true }

// Preflight reports a credential variable that is unset, empty or holds a
// control character (naming the variable, never its value; only when
// credentials).
func (h *HTTP) Preflight(name string, credentials bool) []FieldError {
	if !credentials {
		return nil
	}
	var errs []FieldError
	if h.BearerEnv != "" {
		if fe, ok := credentialVar(name, "bearer_env", h.BearerEnv, os.Getenv); !ok {
			errs = append(errs, fe)
		}
	}
	for _, hd := range slices.Sorted(maps.Keys(h.HeadersEnv)) {
		if fe, ok := credentialVar(name, "headers_env", h.HeadersEnv[hd], os.Getenv); !ok {
			errs = append(errs, fe)
		}
	}
	return errs
}

// TimingNote explains the service cells' timings.
func (h *HTTP) TimingNote() string {
	return "Service cells (http): search is asking the service every query (answers read from the cache count too), once for the sweep: the cells of the other chunkings reuse the answers and show no time. Query p50/p95 is the round trip of the requests sent."
}

// Run asks the service every query (once per sweep: the cells of later
// chunkings reuse the answers), Concurrency at a time, and hands the
// answers to the sweep as passages.
func (h *HTTP) Run(ctx context.Context, c *Cell) error {
	k := cmp.Or(h.K, c.Depth)
	c.Progress.Begin(StageSearch, len(c.Queries), "queries")
	res, reused, err := c.Env.passageSource(fmt.Sprintf("http\x00%s\x00%d", c.Retriever, k), func() (*passageResult, error) {
		return h.ask(ctx, c, k)
	})
	if err != nil {
		return err
	}
	res.set(c, reused)
	note := ""
	switch {
	case reused:
		note = "asked once for the sweep: the same answers as the first chunking's"
	case res.stats.QueryErrors > 0:
		note = fmt.Sprintf("%d queries failed after the retries and score as misses (on_query_error: miss); first: %s", res.stats.QueryErrors, res.firstError)
	}
	c.Progress.End(note)
	return nil
}

// service is an HTTP retriever made ready for one cell: its client,
// headers and the forms of its credentials to redact.
type service struct {
	h       *HTTP
	url     string
	client  *http.Client
	headers http.Header
	secrets []string
	policy  retry.Policy
	max     int64
}

// dial reads the credentials from the environment and builds the client
// (redirects are not followed).
func (h *HTTP) dial(name string) (*service, error) {
	s := &service{h: h, url: h.URL, headers: http.Header{}, max: cmp.Or(h.MaxAnswerBytes, DefaultMaxAnswerBytes)}
	var values []string
	if h.BearerEnv != "" {
		if fe, ok := credentialVar(name, "bearer_env", h.BearerEnv, os.Getenv); !ok {
			return nil, errors.New(fe.Msg)
		}
		v := os.Getenv(h.BearerEnv)
		s.headers.Set("Authorization", "Bearer "+v)
		values = append(values, v)
	}
	for _, hd := range slices.Sorted(maps.Keys(h.HeadersEnv)) {
		if fe, ok := credentialVar(name, "headers_env", h.HeadersEnv[hd], os.Getenv); !ok {
			return nil, errors.New(fe.Msg)
		}
		v := os.Getenv(h.HeadersEnv[hd])
		s.headers.Set(hd, v)
		values = append(values, v)
	}
	s.secrets = redaction.Forms("", "", "", values...)
	timeout, _ := time.ParseDuration(h.Timeout)
	backoff, _ := time.ParseDuration(h.Backoff)
	s.policy = retry.Policy{Retries: *cmp.Or(h.Retries, ptr(engine.DefaultRetries)), Backoff: backoff}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = cmp.Or(h.Concurrency, engine.DefaultConcurrency) + 2
	s.client = &http.Client{Transport: tr, Timeout: cmp.Or(timeout, engine.DefaultTimeout),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return s, nil
}

// request is the contract's request body.
type request struct {
	QID   string `json:"qid"`
	Query string `json:"query"`
	K     int    `json:"k"`
}

// answer is one query's outcome.
type answer struct {
	body    []byte
	err     error
	cached  bool
	latency time.Duration
	stopped bool // its error came after another query stopped the run
}

// ask asks the service every query of c for k results, reading answers
// cached under h.Version first, and scores them as passages.
func (h *HTTP) ask(ctx context.Context, c *Cell, k int) (*passageResult, error) {
	t0 := time.Now()
	s, err := h.dial(c.Retriever)
	if err != nil {
		return nil, err
	}
	answers := make([]answer, len(c.Queries))
	reqs := make([][]byte, len(c.Queries))
	for i, q := range c.Queries {
		reqs[i], _ = json.Marshal(request{q.ID, q.Text, k})
		if b, err := os.ReadFile(h.cachePath(c.Env.CacheDir, reqs[i])); err == nil {
			answers[i] = answer{body: b, cached: true}
		}
	}
	cause, err := s.askAll(ctx, c, reqs, answers)
	if err != nil {
		return nil, err
	}
	res, first, err := h.answers(c, s, k, reqs, answers, cause)
	if err != nil {
		return nil, err
	}
	var lat []time.Duration
	for _, a := range answers {
		if !a.cached && a.err == nil {
			lat = append(lat, a.latency)
		}
	}
	res.stats.LatencyP50 = retrievers.Percentile(lat, 0.50).Seconds() * 1000
	res.stats.LatencyP95 = retrievers.Percentile(lat, 0.95).Seconds() * 1000
	res.stats.Search = time.Since(t0).Seconds()
	res.firstError = first
	return res, nil
}

// askAll sends the requests not answered from the cache, Concurrency at
// a time, into answers. An authentication failure (401, 403), and any
// query error under on_query_error fail, stops the others (their errors
// are then not theirs: answer.stopped): cause is the index of the first
// query, in query order, that failed before the run stopped (-1 when
// none). Errors: ctx's, or the authentication failure.
func (s *service) askAll(parent context.Context, c *Cell, reqs [][]byte, answers []answer) (cause int, err error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	jobs := make(chan int)
	var (
		mu   sync.Mutex // guards done, the progress, auth and cause
		done int
		auth error
		wg   sync.WaitGroup
	)
	cause = -1
	for i := range answers {
		if answers[i].cached {
			done++
		}
	}
	c.Progress.Set(done, 0)
	for range cmp.Or(s.h.Concurrency, engine.DefaultConcurrency) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				t := time.Now()
				b, err := s.policy.Do(ctx, func() ([]byte, error) { return s.once(ctx, reqs[i]) }, retryable)
				answers[i] = answer{body: b, err: err, latency: time.Since(t)}
				mu.Lock()
				answers[i].stopped = err != nil && ctx.Err() != nil
				done++
				c.Progress.Set(done, 0)
				var ae *authError
				stop := errors.As(err, &ae) || err != nil && s.h.OnQueryError != queryErrorMiss
				if stop && cause < 0 && ctx.Err() == nil {
					cause = i
					if ae != nil {
						auth = err
					}
					cancel()
				}
				mu.Unlock()
			}
		}()
	}
	for i := range answers {
		if answers[i].cached {
			continue
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(jobs)
	wg.Wait()
	for i, a := range answers {
		if a.err != nil && !a.stopped && cause >= 0 && i < cause {
			cause = i // failed before the stop too: the first in query order
		}
	}
	switch {
	case parent.Err() != nil:
		return cause, parent.Err()
	case auth != nil:
		return cause, fmt.Errorf("retriever %q: query %q: %w; not counted as a miss: every query would fail the same way", c.Retriever, c.Queries[cause].ID, auth)
	}
	return cause, nil
}

// answers reads every answer in query order into a passage run (an error
// or a malformed answer is a query error: under on_query_error fail the
// run fails on the query that failed first, cause, or else the first in
// query order; under miss the query scores as a miss), caches the fresh
// answers that read, and scores the run. first is the first query error's
// text (misses only).
func (h *HTTP) answers(c *Cell, s *service, k int, reqs [][]byte, answers []answer, cause int) (*passageResult, string, error) {
	run := passages.NewRun(h.URL)
	loc := c.Env.locator(c.Docs)
	var failed []string
	first := ""
	if cause >= 0 && h.OnQueryError != queryErrorMiss {
		return nil, "", h.queryError(c, s, c.Queries[cause].ID, answers[cause].err)
	}
	for i, q := range c.Queries {
		a := answers[i]
		err := a.err
		if err == nil && a.body == nil {
			err = errors.New("not asked: the run stopped")
		}
		if err == nil {
			if err = run.AddAnswer(q.ID, a.body, k, loc); err != nil && a.cached {
				err = fmt.Errorf("cached answer %s: %w (delete it to ask again)", h.cachePath(c.Env.CacheDir, reqs[i]), err)
			}
		}
		if err != nil {
			if h.OnQueryError != queryErrorMiss {
				return nil, "", h.queryError(c, s, q.ID, err)
			}
			if first == "" {
				first = strings.TrimPrefix(h.queryError(c, s, q.ID, err).Error(), fmt.Sprintf("retriever %q: ", c.Retriever))
			}
			failed = append(failed, q.ID)
			run.AddAnswer(q.ID, []byte(`{"results": []}`), k, loc)
			continue
		}
		if !a.cached && h.Version != "" {
			if err := fileutil.WriteAtomic(h.cachePath(c.Env.CacheDir, reqs[i]), a.body); err != nil {
				return nil, "", fmt.Errorf("retriever %q: answer cache: %w", c.Retriever, err)
			}
		}
	}
	res, err := scorePassages(c, run, maxUnmapped(h.MaxUnmapped))
	if err != nil {
		return nil, "", err
	}
	res.stats.QueryErrors, res.stats.FailedQueries = len(failed), failed
	res.secrets = s.secrets
	return res, first, nil
}

// queryError is query qid's error err in words, redacted of s's
// credentials.
func (h *HTTP) queryError(c *Cell, s *service, qid string, err error) error {
	msg := err.Error()
	var ae *passages.AnswerError
	if errors.As(err, &ae) {
		msg = "malformed answer: " + ae.Msg
	}
	return fmt.Errorf("retriever %q: query %q: %s", c.Retriever, qid, redaction.Text(msg, s.secrets, 0))
}

// cachePath is where the answer to request body is cached under h's
// version (in the sweep's cache folder, http/): keyed by the version and
// the request alone, never a credential or the URL.
func (h *HTTP) cachePath(cacheDir string, body []byte) string {
	if h.Version == "" {
		return ""
	}
	key := hashkey.Of(map[string]string{"version": h.Version, "request": string(body)})
	return filepath.Join(cacheDir, "http", key[:2], key+".json")
}

// once sends one request. Errors: a *statusError for an answer other than
// 200 (an *authError for 401 and 403), a transport error (*url.Error) when
// the service could not be reached or did not answer in time, an
// *answerError for a body over the limit.
func (s *service) once(ctx context.Context, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = s.headers.Clone()
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK && resp.ContentLength > s.max {
		return nil, &answerError{fmt.Sprintf("answer of %d bytes, over max_answer_bytes %d (not read)", resp.ContentLength, s.max)}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, s.max+1))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		se := &statusError{status: resp.StatusCode, text: strings.TrimSpace(redaction.Text(string(b), s.secrets, 200)), after: retry.ParseRetryAfter(resp.Header.Get("Retry-After"))}
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			return nil, &authError{se}
		}
		return nil, se
	}
	if int64(len(b)) > s.max {
		return nil, &answerError{fmt.Sprintf("answer over max_answer_bytes %d (read no further)", s.max)}
	}
	return b, nil
}

// statusError is an answer with a status other than 200: the status, the
// service's text (redacted, at most 200 bytes) and its Retry-After.
type statusError struct {
	status int
	text   string
	after  time.Duration
}

func (e *statusError) Error() string {
	msg := fmt.Sprintf("HTTP %d", e.status)
	if e.status >= 300 && e.status < 400 {
		msg += " (a redirect, not followed: it could carry the credentials elsewhere; give the final address as url)"
	}
	if e.text != "" {
		msg += ": " + e.text
	}
	return msg
}

// RetryAfter is the service's Retry-After (retry.After).
func (e *statusError) RetryAfter() time.Duration { return e.after }

// authError is a 401 or 403: the credentials are wrong for every query, so
// the run fails whatever on_query_error says.
type authError struct{ *statusError }

func (e *authError) Error() string {
	return e.statusError.Error() + " (authentication failed: check the variables of bearer_env and headers_env)"
}

func (e *authError) Unwrap() error { return e.statusError }

// answerError is an answer that breaks the contract before it is read
// (too large): a query error, not retried.
type answerError struct{ msg string }

func (e *answerError) Error() string { return e.msg }

// retryable is the contract's rule: a connection refused or reset, or no
// complete answer within the timeout, and 429, 500, 502, 503, 504 are
// retried; other statuses and answers are not.
func retryable(err error) bool {
	var se *statusError
	if errors.As(err, &se) {
		switch se.status {
		case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
		return false
	}
	var ue *url.Error
	return errors.As(err, &ue)
}
