package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
)

// FieldError is one invalid option found by a Validate method: Field is
// the option's configuration name (the snake_case names of ragbench's
// config: "urls[1]", "k1", "bm25_boost"), Msg what is wrong. It never
// holds a credential: URLs are redacted, environment variables named.
type FieldError struct {
	Field, Msg string
}

func (e *FieldError) Error() string { return "engine: " + e.Field + ": " + e.Msg }

// FieldErrors splits an error returned by a Validate method into its
// FieldErrors (nil when err holds none).
func FieldErrors(err error) []*FieldError {
	var out []*FieldError
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if fe, ok := e.(*FieldError); ok {
			out = append(out, fe)
			return
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		walk(errors.Unwrap(e))
	}
	walk(err)
	return out
}

type fieldErrs []error

func (f *fieldErrs) add(field, format string, a ...any) {
	*f = append(*f, &FieldError{Field: field, Msg: fmt.Sprintf(format, a...)})
}

// check adds "v must be want" for field when bad (a number out of its
// range: "-1 must be ≥ 0").
func (f *fieldErrs) check(field string, bad bool, v any, want string) {
	if bad {
		f.add(field, "%v must be %s", v, want)
	}
}

// Validate checks c without the network and without reading the
// environment (Dial reads the named variables): URLs (at least one,
// http(s), no userinfo, query or fragment), the credential variables'
// names (basic auth needs both, at most one scheme), timeout,
// concurrency, retries and backoff. Errors are FieldErrors joined.
func (c Conn) Validate() error {
	var errs fieldErrs
	if len(c.URLs) == 0 {
		errs.add("urls", "missing: at least one node URL, e.g. [http://127.0.0.1:9200]")
	}
	for i, raw := range c.URLs {
		f := fmt.Sprintf("urls[%d]", i)
		u, err := url.Parse(strings.TrimRight(raw, "/"))
		switch {
		case err != nil:
			errs.add(f, "%s: not a URL", redactURL(raw))
		case u.User != nil:
			errs.add(f, "%s carries credentials; give them through environment variables (user_env/password_env or api_key_env)", redactURL(raw))
		case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "":
			errs.add(f, "%s: want http(s)://host:port[/path]", redactURL(raw))
		}
	}
	envName := func(field, name string) {
		if name != "" && (strings.ContainsAny(name, "=$ \t") || name != strings.TrimSpace(name)) {
			errs.add(field, "%q is not an environment variable name (give the variable's name, never its value)", name)
		}
	}
	envName("user_env", c.UserEnv)
	envName("password_env", c.PasswordEnv)
	envName("api_key_env", c.APIKeyEnv)
	switch {
	case c.APIKeyEnv != "" && (c.UserEnv != "" || c.PasswordEnv != ""):
		errs.add("api_key_env", "give basic auth (user_env, password_env) or an API key (api_key_env), not both")
	case c.UserEnv != "" && c.PasswordEnv == "":
		errs.add("password_env", "missing: basic auth needs both user_env and password_env")
	case c.UserEnv == "" && c.PasswordEnv != "":
		errs.add("user_env", "missing: basic auth needs both user_env and password_env")
	}
	errs.check("timeout", c.Timeout < 0, c.Timeout, "> 0")
	errs.check("concurrency", c.Concurrency < 0, c.Concurrency, "> 0")
	errs.check("retries", c.Retries < 0, c.Retries, "≥ 0")
	errs.check("backoff", c.Backoff < 0, c.Backoff, "≥ 0")
	return errors.Join(errs...)
}

// Validate checks m as Load would, without the network: shards, replicas,
// bulk_docs, prefix, k1 and b, the HNSW parameters and the analysis JSON.
func (m Managed) Validate() error {
	var errs fieldErrs
	errs.check("shards", m.Shards < 0, m.Shards, "≥ 1")
	errs.check("replicas", m.Replicas < 0, m.Replicas, "≥ 0")
	errs.check("bulk_docs", m.BulkDocs < 0, m.BulkDocs, "> 0")
	if m.Prefix != "" && !prefixRE.MatchString(m.Prefix) {
		errs.add("prefix", "%q: want lowercase letters, digits, '-' and '_', not starting with '-' or '_'", m.Prefix)
	}
	if b := m.BM25; b != nil {
		if b.K1 < 0 || math.IsNaN(b.K1) || math.IsInf(b.K1, 0) {
			errs.add("k1", "%v must be finite and ≥ 0", b.K1)
		}
		if !(b.B >= 0 && b.B <= 1) {
			errs.add("b", "%v must be in [0, 1]", b.B)
		}
	}
	if h := m.HNSW; h != nil {
		if h.M <= 0 {
			errs.add("hnsw_m", "%d must be > 0", h.M)
		}
		if h.EfConstruction <= 0 {
			errs.add("ef_construction", "%d must be > 0", h.EfConstruction)
		}
	}
	if len(m.Analysis) > 0 && !json.Valid(m.Analysis) {
		errs.add("analysis", "not valid JSON")
	}
	return errors.Join(errs...)
}

// Validate checks q as Index.Retriever would, apart from what needs the
// index (its vector field) and the embedder: the kind, k, num_candidates
// and, for KindHybrid, both boosts.
func (q QueryOptions) Validate() error {
	var errs fieldErrs
	switch q.Kind {
	case KindBM25, KindKNN, KindHybrid:
	case "":
		errs.add("query", "missing: %s, %s or %s", KindBM25, KindKNN, KindHybrid)
	default:
		errs.add("query", "unknown query %q: %s, %s or %s", q.Kind, KindBM25, KindKNN, KindHybrid)
	}
	errs.check("k", q.K < 0, q.K, "> 0")
	errs.check("num_candidates", q.NumCandidates < 0, q.NumCandidates, "> 0")
	if q.Kind == KindHybrid {
		for _, b := range []struct {
			field string
			v     float64
		}{{"bm25_boost", q.BM25Boost}, {"knn_boost", q.KNNBoost}} {
			if !(b.v > 0) || math.IsInf(b.v, 0) {
				errs.add(b.field, "%v: a hybrid query needs both boosts finite and > 0 (zero would silently drop one part)", b.v)
			}
		}
	}
	return errors.Join(errs...)
}

// Validate checks e as Open would, without the network and apart from the
// embedder: the index name, the id field, the template (a JSON object
// holding "{{query}}" or "{{vector}}") and the filters (JSON objects).
// NeedsEmbed reports whether the template holds "{{vector}}".
func (e Existing) Validate() error {
	var errs fieldErrs
	if e.Index == "" {
		errs.add("index", "missing: the index, alias or comma-separated list to search")
	} else if strings.ContainsAny(e.Index, "/?#") {
		errs.add("index", "%q: want a name, alias or comma-separated list", e.Index)
	}
	if e.IDField == "" {
		errs.add("id_field", "missing: the field holding the qrels' ids (\"_id\" for the document id)")
	}
	hasQ, hasV := strings.Contains(e.Template, PlaceholderQuery), strings.Contains(e.Template, PlaceholderVector)
	switch {
	case e.Template == "":
		errs.add("template", "missing: the search body, a JSON object with %s (and/or %s)", PlaceholderQuery, PlaceholderVector)
	case !hasQ && !hasV:
		errs.add("template", "holds neither %s nor %s", PlaceholderQuery, PlaceholderVector)
	default:
		s := strings.NewReplacer(PlaceholderQuery, `"q"`, PlaceholderVector, "[1]", PlaceholderK, "10").Replace(e.Template)
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			errs.add("template", "not a JSON object after substitution: %v", err)
		}
	}
	for i, f := range e.Filters {
		var m map[string]json.RawMessage
		if json.Unmarshal(f, &m) != nil || len(m) == 0 {
			errs.add(fmt.Sprintf("filters[%d]", i), "not a JSON object")
		}
	}
	return errors.Join(errs...)
}

// NeedsEmbed reports whether e's template holds "{{vector}}" (then Open
// needs Existing.Embed).
func (e Existing) NeedsEmbed() bool { return strings.Contains(e.Template, PlaceholderVector) }
