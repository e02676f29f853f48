package engine

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/retrievers"
)

// Credentials of the redaction tests: a user, a password, and the base64
// of "user:password" basic auth sends (as in "Authorization: Basic …").
const (
	tUser = "elastic"
	tPass = "hunter2-Secret"
)

var tBasic = base64.StdEncoding.EncodeToString([]byte(tUser + ":" + tPass))

// echo stands for a proxy (or a misbehaving engine) that answers every
// request with a status and a body made by answer from the request's
// Authorization header.
func echo(answer func(auth string) (int, string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status, body := answer(r.Header.Get("Authorization"))
		w.WriteHeader(status)
		io.WriteString(w, body)
	})
}

// echoProxy serves echo(answer) on a port of its own and returns its URL.
func echoProxy(t *testing.T, answer func(auth string) (int, string)) string {
	t.Helper()
	s := httptest.NewServer(echo(answer))
	t.Cleanup(s.Close)
	return s.URL
}

// checkRedacted fails when msg shows any form of the test credentials
// (or the first 8 characters of their base64) or does not say what was
// removed.
func checkRedacted(t *testing.T, what, msg string) {
	t.Helper()
	for _, s := range []string{tPass, tBasic, tBasic[:8], "ZWxhc3Rp", "sk-proxy-9f8e7d6c"} {
		if strings.Contains(msg, s) {
			t.Errorf("%s: the error shows %q:\n%s", what, s, msg)
		}
	}
	if !strings.Contains(msg, redacted) {
		t.Errorf("%s: the error does not say %s:\n%s", what, redacted, msg)
	}
}

// TestErrorBodiesRedacted: a proxy echoing the Authorization header (as is,
// JSON-escaped, inside an engine-style reason, in a shard failure, a bulk
// item, a health answer, straddling the 200-byte cut of a raw body) put
// "Basic ZWxhc3Rp…" (user:password) on stderr; every error path now
// passes engine text through engineText.
func TestErrorBodiesRedacted(t *testing.T) {
	t.Setenv("RB_USER", tUser)
	t.Setenv("RB_PASS", tPass)
	basic := Conn{UserEnv: "RB_USER", PasswordEnv: "RB_PASS"}
	conn := func(url string) Conn { c := basic; c.URLs = []string{url}; return c }
	search := func(t *testing.T, answer func(auth string) (int, string)) error {
		t.Helper()
		r := openSearchHandler(t, echo(answer), basic)
		_, err := r.Search(context.Background(), []retrievers.Query{{ID: "q1", Text: "x"}}, 3)
		if err == nil {
			t.Fatal("no error")
		}
		return err
	}
	for name, answer := range map[string]func(auth string) (int, string){
		"raw body": func(auth string) (int, string) {
			return 400, "bad request; you sent Authorization: " + auth + "\nuser " + tUser + " password " + tPass
		},
		"header dump": func(auth string) (int, string) {
			return 400, `{"headers":{"authorization":"` + auth + `","X-Proxy":"Bearer sk-proxy-9f8e7d6c"}}`
		},
		"engine reason": func(auth string) (int, string) {
			return 400, `{"error":{"type":"parse_exception","reason":"token ` + strings.TrimPrefix(auth, "Basic ") + ` for ` + tUser + `:` + tPass + `","root_cause":[{"type":"x","reason":"saw ` + auth + `"}]}}`
		},
		"error string": func(auth string) (int, string) {
			return 400, `{"error":"Proxy-Authorization=` + auth + `"}`
		},
		"cut at 200 bytes": func(auth string) (int, string) {
			return 400, strings.Repeat(".", 195) + strings.TrimPrefix(auth, "Basic ")
		},
		"shard failure": func(auth string) (int, string) {
			return 200, `{"_shards":{"total":2,"successful":1,"failed":1,"failures":[{"reason":{"type":"x","reason":"header ` + auth + `"}}]},"hits":{"hits":[]}}`
		},
	} {
		t.Run(name, func(t *testing.T) { checkRedacted(t, name, search(t, answer).Error()) })
	}

	t.Run("ping", func(t *testing.T) {
		url := echoProxy(t, func(auth string) (int, string) { return 200, "<html>you are " + auth + "</html>" })
		_, err := Ping(context.Background(), conn(url), 0)
		if err == nil {
			t.Fatal("no error")
		}
		checkRedacted(t, "ping", err.Error())
	})
	t.Run("bulk item", func(t *testing.T) {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /{ix}/_mapping", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(404) })
		mux.HandleFunc("PUT /{ix}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) })
		mux.HandleFunc("POST /_bulk", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"errors":true,"items":[{"index":{"_id":"a","status":400,"error":{"type":"x","reason":"from %s"}}}]}`, r.Header.Get("Authorization"))
		})
		s := httptest.NewServer(mux)
		defer s.Close()
		_, err := Load(context.Background(), conn(s.URL), Elasticsearch, []corpus.Chunk{{ID: "a", DocID: "a", Text: "x"}}, nil, Managed{})
		if err == nil {
			t.Fatal("no error")
		}
		checkRedacted(t, "bulk item", err.Error())
	})
}

// TestErrorBodiesRedactedAPIKey: an API key ("ApiKey base64(id:key)")
// echoed as is, JSON-escaped or decoded is redacted too.
func TestErrorBodiesRedactedAPIKey(t *testing.T) {
	key := base64.StdEncoding.EncodeToString([]byte("VuaCfGcBCdbkQm-e5aOx:ui2lp2axTNmsyakw9tvNnw"))
	t.Setenv("RB_KEY", key)
	url := echoProxy(t, func(auth string) (int, string) {
		return 401, `{"error":{"type":"security_exception","reason":"bad key ` + strings.TrimPrefix(auth, "ApiKey ") + ` (ui2lp2axTNmsyakw9tvNnw)"}}`
	})
	_, err := Ping(context.Background(), Conn{URLs: []string{url}, APIKeyEnv: "RB_KEY"}, 0)
	if err == nil {
		t.Fatal("no error")
	}
	for _, s := range []string{key, key[:8], "ui2lp2axTNmsyakw9tvNnw"} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("the error shows %q: %v", s, err)
		}
	}
	if !strings.Contains(err.Error(), "HTTP 401: security_exception: bad key "+redacted) {
		t.Errorf("err = %v", err)
	}
}

// TestRedact: what is and is not taken out of engine text. Words that
// follow a scheme name ("basic authentication", "token filter") stay.
func TestRedact(t *testing.T) {
	// The user name alone is not a secret: Elasticsearch's default user
	// "elastic" would otherwise garble "elasticsearch" in every message.
	if got := redact("elasticsearch node", secretForms("elastic", "s3cret-pw", "")); got != "elasticsearch node" {
		t.Errorf("a user name that is a word of the text was redacted: %q", got)
	}
	secrets := secretForms("bob", `pa"ss`, "")
	for in, want := range map[string]string{
		`Authorization: Basic Ym9iOnBhInNz`:           `Authorization: [REDACTED]`,
		`{"authorization": "Bearer abc.DEF.123"}`:     `{"authorization": "[REDACTED]"}`,
		`x Bearer eyJhbGciOi.J9x y`:                   `x Bearer [REDACTED] y`,
		`user bob password pa\"ss`:                    `user bob password [REDACTED]`,
		`bob:pa"ss`:                                   `[REDACTED]`,
		`Ym9iOnBhInNz`:                                `[REDACTED]`,
		`basic authentication is required`:            `basic authentication is required`,
		`unknown token filter [stemmer]`:              `unknown token filter [stemmer]`,
		`mapper_parsing_exception: failed to parse`:   `mapper_parsing_exception: failed to parse`,
		`?authorization=abc&x=1`:                      `?authorization=[REDACTED]&x=1`,
		`index [ragbench-0123456789abcdef] not found`: `index [ragbench-0123456789abcdef] not found`,
	} {
		if got := redact(in, secrets); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMissOnErrorNeverAbsorbsAuth: with SetMissOnError, HTTP 401 on every
// query was absorbed (every query a miss, no error: the cell scored 0 and
// the run exited 0); 401 and 403 now fail the Search with the engine's
// error and why it is not a miss.
func TestMissOnErrorNeverAbsorbsAuth(t *testing.T) {
	qs := []retrievers.Query{{ID: "q1", Text: "a"}, {ID: "q2", Text: "b"}}
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		f := &fake{status: status, hits: func(size int) string { return hitsJSON(0, nil) }}
		f.failures.Store(100)
		r := openFake(t, f, Conn{Concurrency: 1})
		r.SetMissOnError()
		run, err := r.Search(context.Background(), qs, 2)
		want := fmt.Sprintf("HTTP %d", status)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "not counted as a miss") || !AuthFailure(err) {
			t.Fatalf("status %d: run %v, err %v; want the Search failed with %s", status, run, err, want)
		}
		if fl := r.Failed(); len(fl) != 0 {
			t.Errorf("status %d: Failed() = %+v, want none", status, fl)
		}
	}
}

// TestBasicAuthPasswordEchoesRedacted: basic auth's password shares
// redaction.Forms with type http's tokens, so a password holding & " < >
// and a backslash is removed however a proxy or the engine echoes it —
// JSON-escaped by Python or Java (& left as is), by Go (\u0026),
// URL-encoded, inside a hit's _id that bench quotes with %q — and so is
// its base64 pair.
func TestBasicAuthPasswordEchoesRedacted(t *testing.T) {
	const pass = `p&ss"word1<>\x`
	t.Setenv("RB_USER", tUser)
	t.Setenv("RB_PASS", pass)
	basic := Conn{UserEnv: "RB_USER", PasswordEnv: "RB_PASS"}
	pyJSON := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(pass)
	goJSON := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `&`, `\u0026`, `<`, `\u003c`, `>`, `\u003e`).Replace(pass)
	for name, body := range map[string]string{
		"python json": `{"error":{"type":"x","reason":"bad password ` + pyJSON + `"}}`,
		"go json":     `{"error":{"type":"x","reason":"bad password ` + goJSON + `"}}`,
		"url":         `{"error":{"type":"x","reason":"GET /?pw=` + url.QueryEscape(pass) + `"}}`,
		"hit id":      `{"_shards":{"total":1,"successful":1,"failed":0},"hits":{"hits":[{"_id":"` + pyJSON + `","_score":null}]}}`,
		"basic":       `{"error":"Authorization: Basic ` + base64.StdEncoding.EncodeToString([]byte(tUser+":"+pass)) + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			status := 400
			if name == "hit id" {
				status = 200
			}
			r := openSearchHandler(t, echo(func(string) (int, string) { return status, body }), basic)
			_, err := r.Search(context.Background(), []retrievers.Query{{ID: "q1", Text: "x"}}, 3)
			if err == nil {
				t.Fatal("no error")
			}
			if msg := err.Error(); strings.Contains(msg, "word1") || strings.Contains(msg, "p&ss") || !strings.Contains(msg, redacted) {
				t.Errorf("the error shows the password or no %s:\n%s", redacted, msg)
			}
		})
	}
}
