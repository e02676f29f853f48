package sweep

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestCheckEngines: bench run --check's engine check against the fake
// engine (basic auth): the right credentials give each node's health,
// once per connection shared by two retrievers; a wrong password and an
// unreachable node fail with the config's file:line, the retrievers and
// the node, never the password.
func TestCheckEngines(t *testing.T) {
	const user, secret = "rb-user-1c2d", "s3cr3t-PW-4e5f"
	srv := httptest.NewServer(newFakeEngine(user, secret))
	defer srv.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close() // nothing listens there now
	notEngine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>hello</html>")) }))
	defer notEngine.Close()
	t.Setenv("RB_TEST_USER", user)
	conn := func(url string) string {
		return "    urls: [" + url + "]\n    user_env: RB_TEST_USER\n    password_env: RB_TEST_PASS\n"
	}
	yaml := engineConfig("  - name: es\n    type: elasticsearch\n    query: bm25\n" + conn(srv.URL) +
		"  - name: prod\n    type: elasticsearch\n    mode: existing\n    index: prod\n    id_field: _id\n    template: '{\"query\": {\"match\": {\"body\": \"{{query}}\"}}}'\n" + conn(srv.URL))
	load := func(yaml string) *Config {
		t.Helper()
		cfg, err := Load(writeConfig(t, yaml), LoadOptions{DataDir: "/data"})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	t.Setenv("RB_TEST_PASS", secret)
	h, err := CheckEngines(t.Context(), load(yaml), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 1 || strings.Join(h[0].Retrievers, ",") != "es,prod" || len(h[0].Nodes) != 1 ||
		h[0].Nodes[0].URL != srv.URL || h[0].Nodes[0].Cluster != "fake" || h[0].Nodes[0].Status != "yellow" || h[0].Nodes[0].Nodes != 1 {
		t.Fatalf("health %+v: want one connection (es, prod), node %s of cluster fake, yellow, 1 node", h, srv.URL)
	}

	noSecret := func(err error) {
		t.Helper()
		for _, s := range []string{secret, base64.StdEncoding.EncodeToString([]byte(user + ":" + secret))} {
			if strings.Contains(err.Error(), s) {
				t.Errorf("error shows a credential: %v", err)
			}
		}
	}
	// The urls line of retriever es is line 10 of engineConfig's file.
	t.Setenv("RB_TEST_PASS", "wrong-"+secret)
	_, err = CheckEngines(t.Context(), load(yaml), 0)
	want := `:10: retrievers[1].urls: retrievers "es", "prod": engine: node ` + srv.URL + `: GET /_cluster/health: HTTP 401: security_exception: unable to authenticate user (authentication failed: check the credentials' environment variables)`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("wrong password: %v\nwant %q", err, want)
	}
	if err != nil {
		noSecret(err)
	}

	// Two nodes, one down, one not an engine, with a 1 s timeout: both
	// named, the reachable node's answer kept.
	t.Setenv("RB_TEST_PASS", secret)
	start := time.Now()
	cfg := load(engineConfig("  - name: es\n    type: opensearch\n    query: bm25\n    timeout: 1s\n" +
		"    urls: [" + srv.URL + ", " + downURL + ", " + notEngine.URL + "]\n    user_env: RB_TEST_USER\n    password_env: RB_TEST_PASS\n"))
	h, err = CheckEngines(t.Context(), cfg, 0)
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("check took %v; want no retry and a short timeout", el)
	}
	if err == nil || !strings.Contains(err.Error(), `:11: retrievers[1].urls: retriever "es": engine: node `+downURL+` unreachable: `) ||
		!strings.Contains(err.Error(), "; engine: node "+notEngine.URL+": GET /_cluster/health: the answer is not a cluster health") {
		t.Errorf("a node down and one not an engine: %v", err)
	}
	if len(h) != 1 || len(h[0].Nodes) != 1 || h[0].Nodes[0].URL != srv.URL {
		t.Errorf("health %+v: want the reachable node's answer", h)
	}
}
