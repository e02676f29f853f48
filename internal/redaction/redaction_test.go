package redaction

import (
	"encoding/base64"
	"strings"
	"testing"
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
