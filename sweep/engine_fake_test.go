package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// fakeEngine is an Elasticsearch stand-in over httptest for the sweep's
// engine cells: it requires basic auth, keeps indexes in memory (bulk
// loads, _mapping, _count, _stats) and answers a match query by the count
// of query words in a document (no vectors). failQueries makes every
// _search answer 503.
type fakeEngine struct {
	user, pass  string
	failQueries atomic.Bool // set by the test while handlers of a cancelled run may still read it
	failMatch   string      // guarded by mu: a _search whose query text contains it answers 503
	searches    atomic.Int32

	mu      sync.Mutex
	indexes map[string]*fakeIndex
}

type fakeIndex struct {
	meta json.RawMessage
	docs map[string]string // _id → text
}

func newFakeEngine(user, pass string) *fakeEngine {
	return &fakeEngine{user: user, pass: pass, indexes: map[string]*fakeIndex{}}
}

func (f *fakeEngine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if u, p, ok := r.BasicAuth(); !ok || u != f.user || p != f.pass {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"type":"security_exception","reason":"unable to authenticate user"},"status":401}`)
		return
	}
	body, _ := io.ReadAll(r.Body)
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	f.mu.Lock()
	defer f.mu.Unlock()
	notFound := func() {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"type":"index_not_found_exception","reason":"no such index"},"status":404}`)
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/_cluster/health":
		io.WriteString(w, `{"cluster_name":"fake","status":"yellow","number_of_nodes":1}`)
		return
	case r.Method == http.MethodPost && parts[0] == "_bulk":
		fmt.Fprintf(w, `{"errors":false,"items":[%s]}`, strings.Join(f.bulk(body), ","))
		return
	case len(parts) == 1 && r.Method == http.MethodPut:
		f.create(parts[0], body)
		io.WriteString(w, `{"acknowledged":true}`)
		return
	}
	ix := f.indexes[parts[0]]
	if ix == nil {
		notFound()
		return
	}
	switch op := strings.Join(parts[1:], "/"); {
	case op == "_mapping" && r.Method == http.MethodGet:
		fmt.Fprintf(w, `{%q:{"mappings":{"_meta":%s,"properties":{"id":{"type":"keyword"},"text":{"type":"text"}}}}}`, parts[0], ix.meta)
	case op == "_mapping" && r.Method == http.MethodPut:
		var m struct {
			Meta json.RawMessage `json:"_meta"`
		}
		json.Unmarshal(body, &m)
		ix.meta = m.Meta
		io.WriteString(w, `{"acknowledged":true}`)
	case op == "_refresh":
		io.WriteString(w, `{}`)
	case op == "_count":
		fmt.Fprintf(w, `{"count":%d}`, len(ix.docs))
	case op == "_stats/store":
		fmt.Fprintf(w, `{"_all":{"primaries":{"store":{"size_in_bytes":4096}}},"indices":{%q:{"primaries":{"store":{"size_in_bytes":4096}}}}}`, parts[0])
	case op == "_search":
		f.searches.Add(1)
		if f.failQueries.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":{"type":"cluster_block_exception","reason":"no master"},"status":503}`)
			return
		}
		if f.failMatch != "" {
			var q struct{ Query json.RawMessage }
			json.Unmarshal(body, &q)
			if strings.Contains(queryText(q.Query), f.failMatch) {
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, `{"error":{"type":"search_phase_execution_exception","reason":"all shards failed"},"status":503}`)
				return
			}
		}
		fmt.Fprintf(w, `{"timed_out":false,"_shards":{"total":1,"successful":1,"failed":0},"hits":{"hits":[%s]}}`, strings.Join(ix.search(body), ","))
	default:
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"type":"fake","reason":"unhandled %s %s"},"status":400}`, r.Method, r.URL.Path)
	}
}

// bulk indexes a _bulk body's documents (index actions only, each line
// pair an action and a {"text"} document) and returns one item per
// document, all created.
func (f *fakeEngine) bulk(body []byte) []string {
	var items []string
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var action struct {
			Index struct {
				Index string `json:"_index"`
				ID    string `json:"_id"`
			} `json:"index"`
		}
		json.Unmarshal(sc.Bytes(), &action)
		sc.Scan()
		var doc struct{ Text string }
		json.Unmarshal(sc.Bytes(), &doc)
		ix := f.indexes[action.Index.Index]
		ix.docs[action.Index.ID] = doc.Text
		items = append(items, `{"index":{"status":201}}`)
	}
	return items
}

// create creates index name, its _meta taken from the body's mappings
// ({} when absent).
func (f *fakeEngine) create(name string, body []byte) {
	var c struct {
		Mappings struct {
			Meta json.RawMessage `json:"_meta"`
		} `json:"mappings"`
	}
	json.Unmarshal(body, &c)
	if c.Mappings.Meta == nil {
		c.Mappings.Meta = json.RawMessage(`{}`)
	}
	f.indexes[name] = &fakeIndex{docs: map[string]string{}, meta: c.Mappings.Meta}
}

// search scores the index's documents by how many of the query text's
// words (queryText) each holds, case folded, and returns the top size
// hits as JSON, ties by id descending.
func (ix *fakeIndex) search(body []byte) []string {
	var q struct {
		Size  int
		Query json.RawMessage
	}
	json.Unmarshal(body, &q)
	text := queryText(q.Query)
	type hit struct {
		id    string
		score float64
	}
	var hits []hit
	for id, doc := range ix.docs {
		s := 0.0
		for _, w := range strings.Fields(strings.ToLower(text)) {
			if strings.Contains(strings.ToLower(doc), w) {
				s++
			}
		}
		if s > 0 {
			hits = append(hits, hit{id, s})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].id > hits[j].id
	})
	if len(hits) > q.Size {
		hits = hits[:q.Size]
	}
	var hs []string
	for _, h := range hits {
		hs = append(hs, fmt.Sprintf(`{"_id":%q,"_score":%g}`, h.id, h.score))
	}
	return hs
}

// queryText is the query's text: the first string value in the query
// clause, walking objects in key order.
func queryText(query json.RawMessage) string {
	var text string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if text == "" {
				text = x
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k])
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	var qv any
	json.Unmarshal(query, &qv)
	walk(qv)
	return text
}

// seed creates an index the way a user's own loader would (not ragbench's
// mapping), for existing-mode cells.
func (f *fakeEngine) seed(name string, docs map[string]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.indexes[name] = &fakeIndex{docs: docs, meta: json.RawMessage(`{}`)}
}
