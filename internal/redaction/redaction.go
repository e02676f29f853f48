// Package redaction removes credentials from text that a server sent —
// an error reason, a body echoed by a careless proxy — before it reaches
// an error message, a log line or a file: the one redaction of ragbench's
// HTTP clients (retrievers/engine and kinds' type http). It replaces every
// form in which the credentials a client sent can come back (Forms, each
// as is, escaped or encoded by any of the usual encoders: formPattern), and
// any Authorization header value wherever the text holds one, whoever's it
// is, by Marker.
package redaction

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Marker stands for a credential removed from text.
const Marker = "[REDACTED]"

// Forms returns the secret values the credentials a client sends consist
// of, each of which Redact removes in every form a server, a proxy or our
// own messages can show it (formPattern: as is, JSON-escaped with or
// without HTML escaping, any character as a \uXXXX escape, Go's %q,
// URL-encoded, HTML entities), and the Authorization header's encodings of
// them (basic auth's base64 of "user:password" in standard, URL-safe and
// unpadded base64; an API key's "id:key" decoded from it). user and
// password are "" without basic auth, apiKey "" without an API key; others
// are further secret values sent as they are (a bearer token, an API key
// header's value). Longest first, so that "user:password" is replaced
// before "password".
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
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// formPattern returns a regular expression matching secret in every form
// text can show it: each character (each byte of invalid UTF-8) as is or
// escaped, independently of the others, since encoders differ in what they
// escape (Go's json.Marshal escapes & < > as \u0026..., Python's
// json.dumps every non-ASCII character, PHP '/' as \/, Go's %q non-printing
// characters as \x, \u or \U):
//   - a backslash escape with one or more backslashes (escaped once or
//     again when quoted text is quoted): \uXXXX (a surrogate pair beyond
//     the BMP), \UXXXXXXXX, \xHH, \" \' \/ \\ and the named escapes
//     \n \t \r \b \f \v \a, hex digits in either case;
//   - URL encoding: %HH for each UTF-8 byte, '+' for a space;
//   - HTML entities: &amp; &lt; &gt; &quot; &apos; and &#N; &#xH;.
func formPattern(secret string) string {
	var b strings.Builder
	for i := 0; i < len(secret); {
		r, size := utf8.DecodeRuneInString(secret[i:])
		bytes := secret[i : i+size]
		i += size
		var alts []string
		if r == utf8.RuneError && size == 1 {
			// Invalid UTF-8: the byte, Go's \xHH, a URL's %HH, or the
			// replacement character an encoder wrote in its place.
			c := bytes[0]
			// (Go's regexp reads an invalid byte as U+FFFD.)
			alts = append(alts, "\\x{fffd}", "%"+hexPat(uint32(c), 2),
				`\\+x`+hexPat(uint32(c), 2), `\\+u`+hexPat(0xfffd, 4))
			b.WriteString("(?:" + strings.Join(alts, "|") + ")")
			continue
		}
		alts = append(alts, regexp.QuoteMeta(string(r)))
		if r < 0x10000 {
			alts = append(alts, `\\+u`+hexPat(uint32(r), 4))
		} else {
			r1, r2 := utf16.EncodeRune(r)
			alts = append(alts, `\\+u`+hexPat(uint32(r1), 4)+`\\+u`+hexPat(uint32(r2), 4))
		}
		alts = append(alts, `\\+U`+hexPat(uint32(r), 8))
		if r < 0x100 {
			alts = append(alts, `\\+x`+hexPat(uint32(r), 2))
		}
		if e, ok := namedEscapes[r]; ok {
			alts = append(alts, `\\+`+regexp.QuoteMeta(string(e)))
		}
		if r == '\\' {
			alts = append(alts, `\\+`)
		}
		var url strings.Builder
		for j := 0; j < len(bytes); j++ {
			url.WriteString("%" + hexPat(uint32(bytes[j]), 2))
		}
		alts = append(alts, url.String())
		if r == ' ' {
			alts = append(alts, `\+`)
		}
		if e, ok := htmlEntities[r]; ok {
			alts = append(alts, e)
		}
		alts = append(alts, fmt.Sprintf("&#0*%d;", r), "&#[xX]0*"+hexPat(uint32(r), 0)+";")
		b.WriteString("(?:" + strings.Join(alts, "|") + ")")
	}
	return b.String()
}

// formREs caches formPattern's compiled expressions: a client's secrets
// are few and redact every error it meets.
var formREs = struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}{m: map[string]*regexp.Regexp{}}

// formRE is formPattern(secret) compiled (nil if it would not compile:
// never, but a secret is then still removed as is).
func formRE(secret string) *regexp.Regexp {
	formREs.Lock()
	defer formREs.Unlock()
	if re, ok := formREs.m[secret]; ok {
		return re
	}
	if len(formREs.m) >= 1024 {
		clear(formREs.m)
	}
	// Leftmost-longest: "&amp;" is the whole escape of '&', not '&'
	// followed by "amp;".
	re, err := regexp.Compile(formPattern(secret))
	if err == nil {
		re.Longest()
	}
	formREs.m[secret] = re
	return re
}

// namedEscapes are the characters a backslash and a letter (or the
// character itself) stand for in JSON, Go, Python, Java or JavaScript
// strings.
var namedEscapes = map[rune]byte{'"': '"', '\'': '\'', '/': '/', '\n': 'n', '\t': 't',
	'\r': 'r', '\b': 'b', '\f': 'f', '\v': 'v', '\a': 'a', 0: '0'}

// htmlEntities are the named entities HTML escaping writes.
var htmlEntities = map[rune]string{'&': "&amp;", '<': "&lt;", '>': "&gt;", '"': "&quot;", '\'': "&apos;"}

// hexPat matches n in hexadecimal with width digits (0: no leading
// zeros), each digit in either case.
func hexPat(n uint32, width int) string {
	h := strconv.FormatUint(uint64(n), 16)
	for len(h) < width {
		h = "0" + h
	}
	var b strings.Builder
	for _, c := range h {
		if c >= 'a' && c <= 'f' {
			b.WriteString("[" + string(c) + string(c-'a'+'A') + "]")
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
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

// Redact returns text with every form of secrets (Forms, each as is,
// escaped or encoded: formPattern) and every Authorization header value
// replaced by Marker. A message that quotes a server's text (%q, JSON) is
// redacted after the quoting, its last step.
func Redact(text string, secrets []string) string {
	for _, s := range secrets {
		if s == "" {
			continue
		}
		if re := formRE(s); re != nil {
			text = re.ReplaceAllLiteralString(text, Marker)
		} else {
			text = strings.ReplaceAll(text, s, Marker)
		}
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
