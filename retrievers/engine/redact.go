package engine

import "github.com/ragbench/ragbench/internal/redaction"

// redacted stands for a credential removed from engine text.
const redacted = redaction.Marker

// secretForms returns every form in which the credentials a client sends
// can come back in an engine's or a proxy's text (redaction.Forms: each
// value, which redaction.Redact removes in every escaped or encoded form,
// basic auth's base64 forms, an API key's decoded "id:key"). user and password are "" without basic auth, apiKey
// "" without an API key.
func secretForms(user, password, apiKey string) []string {
	return redaction.Forms(user, password, apiKey)
}

// redact returns text (anything an engine or a proxy sent: an error reason,
// a body) with every form of secrets and every Authorization header value
// replaced by "[REDACTED]" (redaction.Redact, the one redaction of
// ragbench's HTTP clients): every path that puts engine text into an error
// goes through client.engineText, which calls it.
func redact(text string, secrets []string) string { return redaction.Redact(text, secrets) }

// engineText is text the engine (or a proxy before it) sent, made safe to
// put in an error: redacted of c's credentials and of any Authorization
// header value, then cut to at most limit bytes (0: no limit; never inside
// a "[REDACTED]"): redaction.Text.
func (c *client) engineText(text string, limit int) string {
	return redaction.Text(text, c.secrets, limit)
}
