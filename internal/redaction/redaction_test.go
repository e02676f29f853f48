package redaction

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
	"unicode/utf16"
)

// TestForms checks that every form of each credential is removed: basic
// auth's pair and its base64 forms, an API key and its decoded id:key, a
// bearer token as is and JSON-escaped, and any Authorization header value
// whoever's it is; words such as "basic authentication" stay.
func TestForms(t *testing.T) {
	token := `tok"en-7f3a9`
	key := base64.StdEncoding.EncodeToString([]byte("id42:k3y-s3cret"))
	secrets := Forms("elastic", "pw-S3cret", key, token)
	for _, c := range []struct{ in, gone string }{
		{"basic " + base64.StdEncoding.EncodeToString([]byte("elastic:pw-S3cret")), "ZWxhc3Rp"},
		{"password pw-S3cret leaked", "pw-S3cret"},
		{`{"auth": "Bearer tok\"en-7f3a9"}`, `tok\"en`},
		{"raw tok\"en-7f3a9", "tok\"en"},
		{"key k3y-s3cret and id42:k3y-s3cret", "k3y-s3cret"},
		{"Authorization: Bearer someone-elses-9XyZ", "someone-elses"},
	} {
		got := Redact(c.in, secrets)
		if strings.Contains(got, c.gone) || !strings.Contains(got, Marker) {
			t.Errorf("Redact(%q) = %q: %q left, or no %s", c.in, got, c.gone, Marker)
		}
	}
	if got := Redact("elasticsearch: basic authentication failed; token filter", secrets); got != "elasticsearch: basic authentication failed; token filter" {
		t.Errorf("words changed: %q", got)
	}
}

// TestText checks the cut after redaction, never inside a marker.
func TestText(t *testing.T) {
	s := Forms("", "", "", "secret-123")
	got := Text("xxxxx secret-123 yyyyy", s, 8)
	if got != "xxxxx "+Marker {
		t.Errorf("Text = %q", got)
	}
	if got := Text("abc", s, 0); got != "abc" {
		t.Errorf("no limit: %q", got)
	}
}

// echoes are the ways a server, a proxy or ragbench's own messages can
// show a secret: as is, JSON-escaped by Go (HTML-escaping & < >) and
// without HTML escaping (Java, Node), Python's json.dumps (every non-ASCII
// character as \uXXXX), PHP's (\/), Go's %q and %+q, a JSON body quoted
// again with %q, URL-encoded (query and path), base64 of basic auth's pair
// and HTML-escaped.
func echoes(secret string) map[string]string {
	goJSON, _ := json.Marshal(secret)
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	enc.Encode(secret)
	py := pythonDumps(secret)
	unquote := func(s string) string { return s[1 : len(s)-1] }
	// Quoted again: the secret inside a JSON body quoted with %q, the
	// body's quotes escaped (\") around it.
	requote := func(s string) string { q := fmt.Sprintf("%q", s); return q[3 : len(q)-3] }
	return map[string]string{
		"raw":          secret,
		"go json":      unquote(string(goJSON)),
		"plain json":   unquote(strings.TrimSpace(plain.String())),
		"python json":  unquote(py),
		"php json":     unquote(strings.ReplaceAll(py, "/", `\/`)),
		"%q":           unquote(fmt.Sprintf("%q", secret)),
		"%+q":          unquote(fmt.Sprintf("%+q", secret)),
		"%q of json":   requote(string(goJSON)),
		"%q of python": requote(py),
		"query":        url.QueryEscape(secret),
		"path":         url.PathEscape(secret),
		"html":         html.EscapeString(secret),
	}
}

// pythonDumps is Python's json.dumps(s) (ensure_ascii=True): " \ and the
// control characters escaped, every character beyond ASCII as \uXXXX
// (surrogate pairs beyond the BMP), invalid UTF-8 read as U+FFFD.
func pythonDumps(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r > 0x7e:
			if r >= 0x10000 {
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// checkEchoes fails when a server's text echoing secret (as a bearer token
// and as basic auth's password) in any of the echoes, inside a JSON error
// body, is not that body with the echo, whole, replaced by Marker.
func checkEchoes(t *testing.T, secret string) {
	t.Helper()
	for _, secrets := range [][]string{Forms("", "", "", secret), Forms("user", secret, "")} {
		forms := echoes(secret)
		if len(secrets) > 1 { // basic auth: the header's base64 too
			forms["base64"] = base64.StdEncoding.EncodeToString([]byte("user:" + secret))
		}
		for how, form := range forms {
			body := `{"error": "auth failed for ` + form + `", "status": 500}`
			got := Redact(body, secrets)
			if got != `{"error": "auth failed for `+Marker+`", "status": 500}` {
				t.Errorf("secret %q echoed %s as %q: Redact = %q", secret, how, form, got)
			}
		}
	}
}

// TestRedactEveryEcho checks the tester's secrets (an & and a quote, which
// Go's JSON escapes as \u0026 and %q leaves; < > and a backslash) and
// random ones: no echo of them survives Redact.
func TestRedactEveryEcho(t *testing.T) {
	for _, s := range []string{`p&ss"word1`, `s3cr"et<tok>&\x`, "naïve-t0ken/+=", "emoji-😀-k3y", "tab\tand\nnewline-9", "sp ace'quote'7"} {
		checkEchoes(t, s)
	}
	rng := rand.New(rand.NewPCG(28, 5))
	alphabet := []rune("aZ09&<>\"'\\/%+= \t\n:;,{}é€😀\u2028\x7f\x01")
	for range 100 {
		n := 6 + rng.IntN(20)
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = alphabet[rng.IntN(len(alphabet))]
		}
		checkEchoes(t, string(rs))
	}
}

// FuzzRedact is TestRedactEveryEcho's property for any secret.
func FuzzRedact(f *testing.F) {
	f.Add(`p&ss"word1`)
	f.Add(`s3cr"et<tok>&\x`)
	f.Fuzz(func(t *testing.T, secret string) {
		// Short secrets may be words of the body or of the marker.
		if len(secret) < 6 || strings.Contains(`{"error": "auth failed for ", "status": 500}`+Marker, secret) {
			t.Skip()
		}
		checkEchoes(t, secret)
	})
}
