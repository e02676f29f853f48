package engine

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/ragbench/ragbench/internal/retry"
)

// Defaults the configuration layer applies when the user gives nothing.
// Conn's zero Timeout and Concurrency take these values; Retries and Backoff
// have no implicit default (0 retries and 0 backoff mean exactly that).
const (
	DefaultTimeout     = 60 * time.Second
	DefaultConcurrency = 4
	DefaultRetries     = 3
	DefaultBackoff     = 500 * time.Millisecond
)

// Conn says how to reach a cluster. Credentials are never part of it: only the
// names of the environment variables that hold them, read once by Dial.
type Conn struct {
	// URLs are the nodes' base URLs ("http://127.0.0.1:9200"), at least one,
	// scheme http or https, no userinfo (credentials in a URL are refused:
	// they come from the environment only), no query or fragment. Requests go
	// round-robin; a node that cannot be reached is skipped for 30 s (the
	// request is retried on the next one).
	URLs []string
	// UserEnv and PasswordEnv name the environment variables holding a basic
	// auth user and password (both or neither). APIKeyEnv names the variable
	// holding an API key, sent as "Authorization: ApiKey KEY" (the base64
	// "id:key" form both engines issue). At most one of the two schemes. A
	// named variable that is unset or empty is an error.
	UserEnv, PasswordEnv, APIKeyEnv string
	// CAFile is a PEM file of CA certificates trusted for https URLs, in
	// place of the system roots; "" uses the system roots.
	CAFile string
	// Timeout bounds each HTTP request (connection, request and response
	// body), > 0; 0 means DefaultTimeout (60 s); < 0 is an error.
	Timeout time.Duration
	// Concurrency is how many queries are in flight at once, > 0; 0 means
	// DefaultConcurrency (4); < 0 is an error. It does not change results.
	Concurrency int
	// Retries is how many times a request is retried after a retryable
	// failure (HTTP 429, 502, 503, 504, or a node that cannot be reached),
	// ≥ 0; 0 means no retry. The wait before retry i (1-based) is
	// Backoff·2^(i−1), capped at 30 s, or the engine's Retry-After when
	// longer. Other HTTP errors (400, 401, 403, 404, 409, ...) are not
	// retried.
	Retries int
	// Backoff is the wait before the first retry, ≥ 0.
	Backoff time.Duration
}

// client is a Conn made usable: parsed URLs, the auth header, an
// http.Client.
type client struct {
	urls        []*url.URL
	auth        string   // Authorization header value, "" for none; never printed
	secrets     []string // every form of the credentials that engine text is redacted of (secretForms)
	http        *http.Client
	retries     int
	backoff     time.Duration
	concurrency int
	next        atomic.Uint64  // round-robin position in urls
	downUntil   []atomic.Int64 // per URL: skipped until this time (Unix ns) after it could not be reached
}

// downFor is how long a node that could not be reached is skipped.
const downFor = 30 * time.Second

// pick returns the index of the next URL in round-robin order that is not
// marked down, or the next one when all are.
func (c *client) pick() int {
	now := time.Now().UnixNano()
	first := int(c.next.Add(1)-1) % len(c.urls)
	for j := range c.urls {
		i := (first + j) % len(c.urls)
		if c.downUntil[i].Load() <= now {
			return i
		}
	}
	return first
}

// dial checks c (Conn.Validate, the one owner of its rules), reads the
// credentials from the environment and returns a client. It makes no
// request.
func dial(c Conn) (*client, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	cl := &client{retries: c.Retries, backoff: c.Backoff, concurrency: cmp.Or(c.Concurrency, DefaultConcurrency)}
	for _, raw := range c.URLs {
		u, _ := url.Parse(strings.TrimRight(raw, "/")) // checked by Validate
		cl.urls = append(cl.urls, u)
	}
	cl.downUntil = make([]atomic.Int64, len(cl.urls))
	var err error
	if cl.auth, cl.secrets, err = credentials(c); err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = cl.concurrency + 2
	if c.CAFile != "" {
		if tr.TLSClientConfig, err = caConfig(c.CAFile); err != nil {
			return nil, err
		}
	}
	cl.http = &http.Client{Transport: tr, Timeout: cmp.Or(c.Timeout, DefaultTimeout)}
	return cl, nil
}

// credentials reads c's credentials (checked by Conn.Validate) from the
// environment: the Authorization header value ("" for none) and every form
// of them engine text is redacted of (secretForms). Errors name the
// variable, never show its value.
func credentials(c Conn) (auth string, secrets []string, err error) {
	env := func(name string) (string, error) {
		v := os.Getenv(name)
		if v == "" {
			return "", fmt.Errorf("engine: environment variable %s is unset or empty", name)
		}
		if strings.ContainsFunc(v, unicode.IsControl) {
			// Not a valid header value (an API key), or a credential the
			// engine would refuse with a 401 after retries: say so now,
			// without showing the value.
			return "", fmt.Errorf("engine: environment variable %s holds a control character (a trailing \\r or \\n read from a file?); its value is not shown", name)
		}
		return v, nil
	}
	switch {
	case c.APIKeyEnv != "":
		k, err := env(c.APIKeyEnv)
		if err != nil {
			return "", nil, err
		}
		return "ApiKey " + k, secretForms("", "", k), nil
	case c.UserEnv != "":
		user, err := env(c.UserEnv)
		if err != nil {
			return "", nil, err
		}
		pass, err := env(c.PasswordEnv)
		if err != nil {
			return "", nil, err
		}
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass)), secretForms(user, pass, ""), nil
	}
	return "", nil, nil
}

// caConfig is a TLS configuration trusting the PEM certificates of file in
// place of the system roots.
func caConfig(file string) (*tls.Config, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("engine: CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("engine: CA file %s: no PEM certificate in it", file)
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

// redactURL returns raw with any userinfo, query, fragment or opaque part
// replaced by "REDACTED" (a password, "?api_key=…" or a token never reaches
// an error message), or "(unparsable URL)".
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	if u.User != nil {
		u.User = url.User("REDACTED")
	}
	if u.Opaque != "" {
		u.Opaque = "REDACTED"
	}
	if u.RawQuery != "" || u.ForceQuery {
		u.RawQuery, u.ForceQuery = "REDACTED", false
	}
	if u.Fragment != "" {
		u.Fragment, u.RawFragment = "REDACTED", ""
	}
	return u.String()
}

// HTTPError is a request the engine answered with a status ≥ 300 (after any
// retries): the method and path (never the host's credentials), the status,
// and the engine's error type and reason when its body gave them.
type HTTPError struct {
	Method, Path string
	Status       int
	Type, Reason string
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("engine: %s %s: HTTP %d", e.Method, e.Path, e.Status)
	if e.Type != "" || e.Reason != "" {
		msg += ": " + strings.TrimPrefix(e.Type+": "+e.Reason, ": ")
	}
	switch e.Status {
	case http.StatusUnauthorized:
		msg += " (authentication failed: check the credentials' environment variables)"
	case http.StatusForbidden:
		msg += " (the credentials lack a privilege this request needs)"
	}
	return msg
}

// AuthFailure reports whether err is (or wraps) an *HTTPError with status
// 401 (the credentials were refused) or 403 (they lack a privilege): an
// error of the configuration, never a query's, so Search fails with it even
// under SetMissOnError.
func AuthFailure(err error) bool {
	var he *HTTPError
	return errors.As(err, &he) && (he.Status == http.StatusUnauthorized || he.Status == http.StatusForbidden)
}

func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusBadGateway ||
		status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout
}

// do sends a request with body (nil for none; JSON unless path ends with
// "_bulk", then NDJSON) to the next node, retrying per the Conn, and returns
// the response body of a 2xx answer. out, when non-nil, receives the decoded
// JSON. A 404 is returned as *HTTPError like any other status.
func (c *client) do(ctx context.Context, method, path string, body []byte, out any) ([]byte, error) {
	b, err := c.withRetries(ctx, func() ([]byte, error) { return c.once(ctx, method, path, body) }, func(err error) bool {
		// A busy answer, or a node that did not answer: the next node
		// (pick) is asked.
		var ra *retryAfter
		var ne *nodeError
		return errors.As(err, &ra) || errors.As(err, &ne)
	})
	if err != nil {
		return nil, err
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return nil, fmt.Errorf("engine: %s %s: reading the answer: %v", method, path, err)
		}
	}
	return b, nil
}

// withRetries calls send until it succeeds, fails with an error retry
// does not accept (or after ctx ended), or the Conn's retries are spent,
// waiting backoffWait before each retry: the retry loop of whole requests
// (do, and Retriever.warmUp for one node), retry.Policy.Do. Errors: send's
// last, with "(after N retries)" when they were spent or "(interrupted: …)"
// when ctx ended during a wait.
func (c *client) withRetries(ctx context.Context, send func() ([]byte, error), retry func(error) bool) ([]byte, error) {
	return c.policy().Do(ctx, send, retry)
}

// backoffWait waits before retry attempt (≥ 1) after error last (nil when
// there is none to read): the Conn's backoff doubled per earlier retry, at
// most 30 s, or the engine's Retry-After when last carries a longer one
// (retry.Policy.Wait). Every retry of the package waits through it
// (withRetries, a partial search answer, rejected bulk items). Errors:
// ctx's, when it ends first.
func (c *client) backoffWait(ctx context.Context, attempt int, last error) error {
	return c.policy().Wait(ctx, attempt, last)
}

// policy is the Conn's retries and backoff.
func (c *client) policy() retry.Policy { return retry.Policy{Retries: c.retries, Backoff: c.backoff} }

// retryAfter wraps an HTTPError with a retryable status and the engine's
// Retry-After.
type retryAfter struct {
	*HTTPError
	d time.Duration
}

func (r *retryAfter) Unwrap() error { return r.HTTPError }

// RetryAfter is the engine's Retry-After (retry.After).
func (r *retryAfter) RetryAfter() time.Duration { return r.d }

// nodeError is a node that could not be reached or did not answer in time.
type nodeError struct {
	node string // scheme://host:port, no userinfo (refused by dial)
	err  error
}

func (e *nodeError) Error() string {
	// url.Error repeats the full URL; the host alone is enough and safe.
	msg := e.err.Error()
	var ue *url.Error
	if errors.As(e.err, &ue) {
		msg = ue.Err.Error()
	}
	return fmt.Sprintf("engine: node %s unreachable: %s", e.node, msg)
}

func (e *nodeError) Unwrap() error { return e.err }

// once sends one request, without retry, to the next node (pick).
func (c *client) once(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	return c.onceAt(ctx, c.pick(), method, path, body)
}

// onceAt sends one request, without retry, to node ui (an index into
// c.urls), with the auth header. Errors: a *nodeError when the node could
// not be reached or its answer not read, an *HTTPError (a *retryAfter for
// a retryable status) for a status ≥ 300.
func (c *client) onceAt(ctx context.Context, ui int, method, path string, body []byte) ([]byte, error) {
	u := c.urls[ui]
	p, _, _ := strings.Cut(path, "?")
	req, err := c.request(ctx, u, method, path, body)
	if err != nil {
		return nil, fmt.Errorf("engine: %s %s: %v", method, p, err)
	}
	node := u.Scheme + "://" + u.Host
	resp, err := c.http.Do(req)
	if err != nil {
		var ne net.Error
		if ctx.Err() == nil && (errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
			c.downUntil[ui].Store(time.Now().Add(downFor).UnixNano())
			return nil, &nodeError{node: node, err: err}
		}
		return nil, fmt.Errorf("engine: %s %s on %s: %v", method, p, node, errorText(err))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, &nodeError{node: node, err: err}
	}
	if resp.StatusCode < 300 {
		return b, nil
	}
	he := &HTTPError{Method: method, Path: p, Status: resp.StatusCode}
	he.Type, he.Reason = c.errorReason(resp.StatusCode, b)
	if retryable(resp.StatusCode) {
		return nil, &retryAfter{HTTPError: he, d: retry.ParseRetryAfter(resp.Header.Get("Retry-After"))}
	}
	return nil, he
}

// request is the HTTP request for method and path (with its query) on
// node u, with body (JSON, or NDJSON for a path ending in "_bulk") and the
// auth header.
func (c *client) request(ctx context.Context, u *url.URL, method, path string, body []byte) (*http.Request, error) {
	full := *u
	p, q, _ := strings.Cut(path, "?")
	full.Path = u.Path + p
	full.RawQuery = q
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, full.String(), rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		if strings.HasSuffix(p, "_bulk") {
			req.Header.Set("Content-Type", "application/x-ndjson")
		} else {
			req.Header.Set("Content-Type", "application/json")
		}
	}
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	return req, nil
}

// errorReason reads the error type and reason of an answer with status
// ≥ 300 from its body b: the engines' {"error": {"type", "reason",
// "root_cause", "caused_by"}} or {"error": "…"}, else (but for a 404) the
// first 200 bytes of the body as the reason. Both are redacted
// (engineText): a proxy may echo the request's Authorization header.
func (c *client) errorReason(status int, b []byte) (typ, reason string) {
	var eb struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &eb) == nil && len(eb.Error) > 0 {
		var detail struct {
			Type      string `json:"type"`
			Reason    string `json:"reason"`
			RootCause []struct {
				Type   string `json:"type"`
				Reason string `json:"reason"`
			} `json:"root_cause"`
			CausedBy struct {
				Type   string `json:"type"`
				Reason string `json:"reason"`
			} `json:"caused_by"`
		}
		if json.Unmarshal(eb.Error, &detail) == nil {
			typ, reason = detail.Type, detail.Reason
			if reason == "" && detail.CausedBy.Type != "" {
				// A search phase failure with no reason of its own
				// (OpenSearch when a node leaves mid-fetch) says what
				// happened in caused_by.
				reason = strings.TrimSuffix(detail.CausedBy.Type+": "+detail.CausedBy.Reason, ": ")
			}
			if len(detail.RootCause) > 0 && detail.RootCause[0].Reason != "" && detail.RootCause[0].Reason != reason {
				reason += " (root cause: " + detail.RootCause[0].Reason + ")"
			}
		} else {
			var s string
			if json.Unmarshal(eb.Error, &s) == nil {
				reason = s
			}
		}
	}
	if reason == "" && status != http.StatusNotFound {
		return c.engineText(typ, 0), strings.TrimSpace(c.engineText(string(b), 200))
	}
	return c.engineText(typ, 0), c.engineText(reason, 0)
}

// errorText is err's message without a *url.Error's URL.
func errorText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
