package engine

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
)

// redacted stands for a credential removed from engine text.
const redacted = "[REDACTED]"

// secretForms returns every form in which the credentials a client sends
// can come back in an engine's or a proxy's text: each value as is and
// JSON-escaped (an echoed header inside a JSON body), and the
// Authorization header's encodings of them (basic auth's base64 of
// "user:password" in standard, URL-safe and unpadded base64; an API key's
// "id:key" decoded from it). user and password are "" without basic auth,
// apiKey "" without an API key. Longest first, so that "user:password" is
// replaced before "password".
func secretForms(user, password, apiKey string) []string {
	var raw []string
	if user != "" || password != "" {
		pair := user + ":" + password
		// The user name alone is not a secret and is often a word of the
		// engine's own text ("elastic" in "elasticsearch"): only the
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
// "basic authentication" or "token filter" in an engine's reason stay.
var authValueRE = regexp.MustCompile(`(?i)(authorization["']?\s*[:=]\s*["']?)[^"'\r\n,;}&]*` +
	`|\b(basic|bearer|apikey|negotiate|token)(\s+)([A-Za-z0-9+/=._~\\-]{6,})`)

// credentialLike reports whether tok looks like a credential rather than
// a word: it holds a digit, '+', '/' or '=' (base64, JWTs) or an upper-case
// letter after its first character.
func credentialLike(tok string) bool {
	return strings.ContainsAny(tok, "0123456789+/=") || strings.ToLower(tok[1:]) != tok[1:]
}

// redact returns text (anything an engine or a proxy sent: an error reason,
// a body) with every form of secrets (secretForms) and every Authorization
// header value replaced by "[REDACTED]". It is the one redaction of the
// package: every path that puts engine text into an error goes through
// client.engineText, which calls it.
func redact(text string, secrets []string) string {
	for _, s := range secrets {
		text = strings.ReplaceAll(text, s, redacted)
	}
	return authValueRE.ReplaceAllStringFunc(text, func(m string) string {
		g := authValueRE.FindStringSubmatch(m)
		switch {
		case g[1] != "":
			return g[1] + redacted
		case credentialLike(g[4]):
			return g[2] + g[3] + redacted
		}
		return m
	})
}

// engineText is text the engine (or a proxy before it) sent, made safe to
// put in an error: redacted of c's credentials and of any Authorization
// header value, then cut to at most limit bytes (0: no limit; cut after the
// redaction, so that a credential cut in two is still found whole, and
// never inside a "[REDACTED]").
func (c *client) engineText(text string, limit int) string {
	text = redact(text, c.secrets)
	if limit > 0 && len(text) > limit {
		cut := limit
		// A marker the cut would split is kept whole.
		from := max(0, cut-len(redacted)+1)
		if i := strings.Index(text[from:], redacted); i >= 0 && from+i < cut {
			cut = from + i + len(redacted)
		}
		text = text[:cut]
	}
	return text
}
