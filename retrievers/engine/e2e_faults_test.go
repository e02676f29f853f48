//go:build e2e

package engine_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers/engine"
)

// The secrets of the credential tests: they must appear in no output.
const (
	rightSecret = "s3cret-RIGHT-7f3a9c"
	wrongSecret = "s3cret-WRONG-0b1d2e"
)

// authProxy stands for a secured cluster in front of the real engine (the
// Maven integ-test zips carry no security plugin): it answers 401 with the
// engines' security_exception body unless the request has basic auth
// ragbench:rightSecret, and forwards the rest to target.
func authProxy(t *testing.T, target string) *httptest.Server {
	u, _ := url.Parse(target)
	rp := httputil.NewSingleHostReverseProxy(u)
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("ragbench:"+rightSecret))
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != want {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"root_cause":[{"type":"security_exception","reason":"unable to authenticate user [ragbench] for REST request [`+r.URL.Path+`]"}],"type":"security_exception","reason":"unable to authenticate user [ragbench] for REST request [`+r.URL.Path+`]"},"status":401}`)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// captureStderr redirects os.Stderr (where the sweep logs) to a file in dir
// until the returned function is called, which restores it and returns
// what was written.
func captureStderr(t *testing.T, dir string) func() string {
	f, err := os.Create(filepath.Join(dir, "stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stderr
	os.Stderr = f
	return func() string {
		os.Stderr = old
		f.Close()
		b, _ := os.ReadFile(f.Name())
		return string(b)
	}
}

func testFaults(t *testing.T, c *cluster, sf *sciFact) {
	ctx := context.Background()
	small := sf.chunks[:200]

	t.Run("unreachable", func(t *testing.T) {
		conn := engine.Conn{URLs: []string{"http://127.0.0.1:1"}, Retries: 2, Backoff: 10 * time.Millisecond}
		_, err := engine.Load(ctx, conn, c.dialect, small, nil, engine.Managed{})
		if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1 unreachable") || !strings.Contains(err.Error(), "after 2 retries") {
			t.Fatalf("unreachable URL: got %v, want an error naming the node and the retries", err)
		}
		t.Logf("unreachable: %v", err)
	})

	t.Run("credentials", func(t *testing.T) {
		dir := t.TempDir()
		proxy := authProxy(t, c.urls[0])
		t.Setenv("RAGBENCH_TEST_USER", "ragbench")
		restore := captureStderr(t, dir)
		var msgs []string
		func() {
			defer func() { msgs = append(msgs, restore()) }()
			t.Setenv("RAGBENCH_TEST_PASSWORD", wrongSecret)
			conn := engine.Conn{URLs: []string{proxy.URL}, UserEnv: "RAGBENCH_TEST_USER", PasswordEnv: "RAGBENCH_TEST_PASSWORD", Retries: 1}
			_, err := engine.Load(ctx, conn, c.dialect, small, nil, engine.Managed{})
			if err == nil || !strings.Contains(err.Error(), "HTTP 401") || !strings.Contains(err.Error(), "authentication failed") {
				t.Errorf("wrong credentials: got %v, want HTTP 401, authentication failed", err)
			} else {
				msgs = append(msgs, err.Error())
				t.Logf("wrong credentials: %v", err)
			}
			// Credentials in the URL are refused, and the error does not
			// repeat them.
			bad := strings.Replace(proxy.URL, "http://", "http://ragbench:"+rightSecret+"@", 1)
			_, err = engine.Load(ctx, engine.Conn{URLs: []string{bad}}, c.dialect, small, nil, engine.Managed{})
			if err == nil || !strings.Contains(err.Error(), "carries credentials") {
				t.Errorf("URL with userinfo: got %v, want it refused", err)
			} else {
				msgs = append(msgs, err.Error())
			}
			// The right secret: load, search, write the run as the sweep does.
			t.Setenv("RAGBENCH_TEST_PASSWORD", rightSecret)
			conn.Retries = 0
			ix, err := engine.Load(ctx, conn, c.dialect, small, nil, engine.Managed{})
			if err != nil {
				t.Fatalf("right credentials through the proxy: %v", err)
			}
			r, err := ix.Retriever(engine.QueryOptions{Kind: engine.KindBM25})
			if err != nil {
				t.Fatal(err)
			}
			run, err := r.Search(ctx, sf.queries[:50], 10)
			if err != nil {
				t.Fatal(err)
			}
			if err := eval.WriteRunFile(filepath.Join(dir, "run.trec"), run, ix.Name()); err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, fmt.Sprintf("%+v %+v %s", r.Stats(), conn, ix.Name()))
			// A failing query's error after authentication.
			ro, err := engine.Open(ctx, conn, c.dialect, engine.Existing{Index: "no-such-index", IDField: "_id", Template: `{"query":{"match":{"text":"{{query}}"}}}`})
			if err == nil {
				t.Errorf("missing index: no error (%v)", ro)
			} else {
				msgs = append(msgs, err.Error())
			}
			fmt.Fprintln(os.Stderr, "logged while the secret was set:", msgs)
		}()
		// Grep every written file, the captured stderr and the messages.
		filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				b, _ := os.ReadFile(p)
				msgs = append(msgs, string(b))
			}
			return nil
		})
		for _, m := range msgs {
			for _, s := range []string{rightSecret, wrongSecret, base64.StdEncoding.EncodeToString([]byte("ragbench:" + rightSecret))} {
				if strings.Contains(m, s) {
					t.Errorf("secret %q found in output: %.300s", s, m)
				}
			}
		}
		t.Logf("secrets absent from %d outputs (errors, stderr, the run file, Stats, Conn)", len(msgs))
	})

	t.Run("mapping-conflict", func(t *testing.T) {
		opts := engine.Managed{Prefix: "conflict"}
		ix, err := engine.Load(ctx, c.conn(), c.dialect, small, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		// Someone else's index under the same name, text mapped as a number.
		del, _ := http.NewRequest(http.MethodDelete, c.urls[0]+"/"+ix.Name(), nil)
		if resp, err := http.DefaultClient.Do(del); err != nil {
			t.Fatal(err)
		} else {
			resp.Body.Close()
		}
		put, _ := http.NewRequest(http.MethodPut, c.urls[0]+"/"+ix.Name(), strings.NewReader(`{"mappings":{"properties":{"text":{"type":"long"}}}}`))
		put.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(put); err != nil || resp.StatusCode != 200 {
			t.Fatalf("creating the conflicting index: %v %v", err, resp.Status)
		}
		_, err = engine.Load(ctx, c.conn(), c.dialect, small, nil, opts)
		if err == nil || !strings.Contains(err.Error(), "mapping conflict") {
			t.Fatalf("conflicting index: got %v, want a mapping conflict error", err)
		}
		t.Logf("mapping conflict: %v", err)
		// A bad analyzer is the engine's mapping error, with its reason.
		_, err = engine.Load(ctx, c.conn(), c.dialect, small, nil, engine.Managed{Prefix: "conflict", Analyzer: "no_such_analyzer"})
		if err == nil || !strings.Contains(err.Error(), "no_such_analyzer") {
			t.Fatalf("unknown analyzer: got %v, want the engine's reason", err)
		}
		t.Logf("unknown analyzer: %v", err)
	})

	t.Run("no-id-field", func(t *testing.T) {
		tmpl := `{"query": {"match": {"body": "{{query}}"}}}`
		_, err := engine.Open(ctx, c.conn(), c.dialect, engine.Existing{Index: "team-scifact", IDField: "chunk_id", Template: tmpl})
		if err == nil || !strings.Contains(err.Error(), `no field "chunk_id"`) {
			t.Fatalf("id field not in the mapping: got %v", err)
		}
		t.Logf("id field not in the mapping: %v", err)
		// The field is mapped but the documents lack it: the query fails,
		// it does not come back empty.
		mapping := `{"mappings":{"properties":{"doc_id":{"type":"keyword"},"body":{"type":"text"}}}}`
		noID := *sf
		noID.chunks = small
		plainBulk(t, c.urls[0], "team-noid", mapping, &noID, false)
		r, err := engine.Open(ctx, c.conn(), c.dialect, engine.Existing{Index: "team-noid", IDField: "doc_id", Template: tmpl})
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Search(ctx, sf.queries[:10], 10)
		if err == nil || !strings.Contains(err.Error(), `no field "doc_id" in _source`) {
			t.Fatalf("documents without the id field: got %v", err)
		}
		t.Logf("documents without the id field: %v", err)
	})

	t.Run("bulk-rejections", func(t *testing.T) {
		tiny := start(t, c.dialect, "single", 9240, "thread_pool.write.size: 1\nthread_pool.write.queue_size: 1")
		conn := tiny.conn()
		conn.Retries, conn.Backoff = 8, 100*time.Millisecond
		var wg sync.WaitGroup
		resent := make([]int, 4)
		errs := make([]error, 4)
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ix, err := engine.Load(ctx, conn, c.dialect, sf.chunks[:2000], nil, engine.Managed{Prefix: fmt.Sprintf("tiny%d", i), BulkDocs: 50, Shards: 2})
				errs[i] = err
				if ix != nil {
					resent[i] = ix.Resent()
				}
			}()
		}
		wg.Wait()
		total := 0
		for i := range 4 {
			if errs[i] != nil {
				// A load that still fails must say why.
				if !strings.Contains(errs[i].Error(), "429") {
					t.Errorf("load %d: %v", i, errs[i])
				}
				t.Logf("load %d failed clearly: %v", i, errs[i])
			}
			total += resent[i]
		}
		t.Logf("4 concurrent loads into a node with write queue 1: %d documents resent after 429", total)
		if total == 0 && errs[0] == nil && errs[1] == nil && errs[2] == nil && errs[3] == nil {
			t.Errorf("no rejection happened: the test did not exercise the 429 path")
		}
	})
}
