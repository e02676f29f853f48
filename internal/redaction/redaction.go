// Package redaction removes credentials from text that a server sent —
// an error reason, a body echoed by a careless proxy — before it reaches
// an error message, a log line or a file: the one redaction of ragbench's
// HTTP clients (retrievers/engine and kinds' type http). It replaces every
// form in which the credentials a client sent can come back (Forms), and
// any Authorization header value wherever the text holds one, whoever's it
// is, by Marker.
package redaction

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
)

// Marker stands for a credential removed from text.
const Marker = "[REDACTED]"

// Forms returns every form in which the credentials a client sends can
// come back in a server's or a proxy's text: each value as is and
// JSON-escaped (an echoed header inside a JSON body), and the
// Authorization header's encodings of them (basic auth's base64 of
// "user:password" in standard, URL-safe and unpadded base64; an API key's
// "id:key" decoded from it). user and password are "" without basic auth,
// apiKey "" without an API key; others are further secret values sent as
// they are (a bearer token, an API key header's value). Longest first, so
// that "user:password" is replaced before "password".
func Forms(user, password, apiKey string, others ...string) []string {
	var raw []string
	if user != "" || password != "" {
		pair := user + ":" + password
		// The user name alone is not a secret and is often a word of the
		// server's own text ("elastic" in "elasticsearch"): only the
		// password and the pair are removed.
		raw = append(raw, password, pair,
			base64.StdEncoding.EncodeToString([]byte(pair)), base64.RawStdEncoding.EncodeToString([]byte(pair)),
			base64.URLEncoding.EncodeToString([]byte(pair)), base64.RawURLEncoding.EncodeToString([]byte(pair)))
	}
	if apiKey != "" {
		raw = append(raw, apiKey)
		if dec, err := base64.StdEncoding.DecodeString(apiKey); err == nil {
			if _, key, ok := strings.Cut(string(dec), ":"); ok {
				raw = append(raw, string(dec), key)
			}
		}
	}
	raw = append(raw, others...)
	var out []string
	seen := map[string]bool{}
	for _, s := range raw {
		j, _ := json.Marshal(s)
		for _, f := range []string{s, string(j[1 : len(j)-1])} {
			if f != "" && !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// authValueRE matches an Authorization header's value wherever text holds
// one, whoever's it is (a proxy's own, a credential ragbench was not given):
// group 1 is "authorization" and a ':' or '=' after it (JSON, a header dump,
// a query string), the value running to the end of the line or field; group
// 2 a scheme (Basic, Bearer, ApiKey, Negotiate, Token) followed by group 3,
// a token, replaced only when it looks like one (credentialLike), so that
// "basic authentication" or "token filter" in a server's reason stay.
var authValueRE = regexp.MustCompile(`(?i)(authorization["']?\s*[:=]\s*["']?)[^"'\r\n,;}&]*` +
	`|\b(basic|bearer|apikey|negotiate|token)(\s+)([A-Za-z0-9+/=._~\\-]{6,})`)

// credentialLike reports whether tok looks like a credential rather than
// a word: it holds a digit, '+', '/' or '=' (base64, JWTs) or an upper-case
// letter after its first character.
func credentialLike(tok string) bool {
	return strings.ContainsAny(tok, "0123456789+/=") || strings.ToLower(tok[1:]) != tok[1:]
}

// Redact returns text with every form of secrets (Forms) and every
// Authorization header value replaced by Marker.
func Redact(text string, secrets []string) string {
	for _, s := range secrets {
		text = strings.ReplaceAll(text, s, Marker)
	}
	return authValueRE.ReplaceAllStringFunc(text, func(m string) string {
		g := authValueRE.FindStringSubmatch(m)
		switch {
		case g[1] != "":
			return g[1] + Marker
		case credentialLike(g[4]):
			return g[2] + g[3] + Marker
		}
		return m
	})
}

// Text is text a server sent made safe to put in an error: Redact, then
// cut to at most limit bytes (0: no limit; cut after the redaction, so
// that a credential cut in two is still found whole, and never inside a
// Marker).
func Text(text string, secrets []string, limit int) string {
	text = Redact(text, secrets)
	if limit > 0 && len(text) > limit {
		cut := limit
		// A marker the cut would split is kept whole.
		from := max(0, cut-len(Marker)+1)
		if i := strings.Index(text[from:], Marker); i >= 0 && from+i < cut {
			cut = from + i + len(Marker)
		}
		text = text[:cut]
	}
	return text
}
