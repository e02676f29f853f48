package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/retrievers/dense"
)

// Placeholders of an existing index's query template.
const (
	PlaceholderQuery  = `"{{query}}"`  // the query text, as a JSON string
	PlaceholderVector = `"{{vector}}"` // the query embedding, as a JSON array of numbers
	PlaceholderK      = `"{{k}}"`      // the number of hits asked for, a JSON number
)

// Existing configures a user's index, queried as it is: ragbench creates,
// writes and changes nothing (its requests are GET _mapping, GET _stats and
// POST _search).
type Existing struct {
	// Index is the index (or alias, or comma-separated list) to search.
	Index string
	// Template is the search request body, a JSON object in which the
	// quoted placeholders "{{query}}", "{{vector}}" and "{{k}}" stand for the
	// query text (a JSON string), its embedding (a JSON array; needs Embed)
	// and the number of hits asked for (a number, e.g. a knn "k"). At least
	// one of "{{query}}" and "{{vector}}" must appear. Its "size" and
	// "_source" are set by the retriever (the search depth, and IDField).
	// Example: {"query": {"match": {"body": "{{query}}"}}}.
	Template string
	// IDField is the field whose value is the doc or chunk id the qrels use:
	// "_id" for the document id, else a keyword or numeric field of
	// _source. It must appear in the index mapping (checked by Open).
	IDField string
	// Filters are optional query clauses every hit must match (JSON
	// objects, e.g. {"term": {"lang": "en"}}). They are added to the
	// template's "query" as bool filter clauses and, for Elasticsearch, to
	// its top-level "knn" section's filter, so kNN candidates are filtered
	// before the top k is taken.
	Filters []json.RawMessage
	// NoDFS turns off search_type=dfs_query_then_fetch (on by default; not
	// sent to Elasticsearch with a top-level knn section, which refuses it
	// and runs its DFS phase by itself).
	NoDFS bool
	// Embed embeds query texts (query = true) for "{{vector}}", with the
	// model that made the index's vectors. Required when the template has
	// "{{vector}}".
	Embed dense.EmbedFunc
}

// Open checks an existing index and returns a retriever over it: the index
// must exist and its mapping must hold IDField (unless "_id"); the template
// must be a JSON object with its placeholders. Stats().IndexBytes is the
// primaries' store size from _stats; Stats().Build is 0.
func Open(ctx context.Context, conn Conn, dialect Dialect, e Existing) (*Retriever, error) {
	if err := dialect.check(); err != nil {
		return nil, err
	}
	cl, err := dial(conn)
	if err != nil {
		return nil, err
	}
	if err := e.Validate(); err != nil {
		return nil, err
	}
	if e.NeedsEmbed() && e.Embed == nil {
		return nil, fmt.Errorf("engine: existing index: the template holds %s but no query embedder was given", PlaceholderVector)
	}
	r := &Retriever{cl: cl, index: e.Index, dfs: !e.NoDFS, idField: e.IDField, render: e.renderer(dialect)}
	if e.NeedsEmbed() {
		r.embed = e.Embed
		if dialect == OpenSearch {
			r.enableWarmUp()
		}
	}
	// Check the template renders before any query is sent.
	probe, err := r.render("probe", nil, 10)
	if err != nil {
		return nil, fmt.Errorf("engine: existing index %s: %v", e.Index, err)
	}
	// Elasticsearch refuses search_type with a top-level knn section (its
	// DFS phase runs by itself then).
	var top map[string]json.RawMessage
	if json.Unmarshal(probe, &top) == nil && dialect == Elasticsearch {
		if _, ok := top["knn"]; ok {
			r.dfs = false
		}
	}
	if err := e.checkMapping(ctx, cl); err != nil {
		return nil, err
	}
	if r.bytes, err = storeBytes(ctx, cl, e.Index, "_all"); err != nil {
		return nil, fmt.Errorf("engine: existing index %s: %w", e.Index, err)
	}
	return r, nil
}

// renderer returns the function rendering e's template for a query text,
// its vector (nil: none) and a size: the placeholders substituted, "size"
// and "_source" set, the filters added (to "query" as bool filter clauses;
// for Elasticsearch to the top-level "knn" section's filter too).
func (e Existing) renderer(dialect Dialect) func(text string, vec []float32, size int) ([]byte, error) {
	return func(text string, vec []float32, size int) ([]byte, error) {
		q, _ := json.Marshal(text)
		v := []byte("null")
		if vec != nil {
			v, _ = json.Marshal(vec)
		}
		s := strings.NewReplacer(PlaceholderQuery, string(q), PlaceholderVector, string(v), PlaceholderK, strconv.Itoa(size)).Replace(e.Template)
		var body map[string]json.RawMessage
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		if err := d.Decode(&body); err != nil {
			return nil, fmt.Errorf("the query template is not a JSON object after substitution: %v", err)
		}
		body["size"] = json.RawMessage(strconv.Itoa(size))
		if e.IDField == "_id" {
			body["_source"] = json.RawMessage("false")
		} else {
			src, _ := json.Marshal([]string{e.IDField})
			body["_source"] = src
		}
		if len(e.Filters) > 0 {
			if err := e.addFilters(body, dialect); err != nil {
				return nil, err
			}
		}
		return json.Marshal(body)
	}
}

// addFilters adds e.Filters to a rendered body: to its "query" as bool
// filter clauses and, for Elasticsearch, to its top-level "knn" section's
// filter (kept with any filter the template gave it).
func (e Existing) addFilters(body map[string]json.RawMessage, dialect Dialect) error {
	filters, _ := json.Marshal(e.Filters)
	if q, ok := body["query"]; ok {
		body["query"], _ = json.Marshal(map[string]any{"bool": map[string]any{"must": []json.RawMessage{q}, "filter": json.RawMessage(filters)}})
	}
	k, ok := body["knn"]
	if !ok || dialect != Elasticsearch {
		return nil
	}
	var knn map[string]json.RawMessage
	if json.Unmarshal(k, &knn) != nil {
		return errors.New("the template's knn section is not one JSON object (filters need one)")
	}
	var all []json.RawMessage
	if old, ok := knn["filter"]; ok {
		if bytes.HasPrefix(bytes.TrimSpace(old), []byte("[")) {
			if err := json.Unmarshal(old, &all); err != nil {
				return fmt.Errorf("the template's knn filter: %v", err)
			}
		} else {
			all = append(all, old)
		}
	}
	all = append(all, e.Filters...)
	knn["filter"], _ = json.Marshal(all)
	body["knn"], _ = json.Marshal(knn)
	return nil
}

// checkMapping checks that e.Index exists and that the mapping of every
// index it names holds e.IDField (unless "_id").
func (e Existing) checkMapping(ctx context.Context, cl *client) error {
	var m map[string]struct {
		Mappings json.RawMessage `json:"mappings"`
	}
	if _, err := cl.do(ctx, http.MethodGet, "/"+e.Index+"/_mapping", nil, &m); err != nil {
		return fmt.Errorf("engine: existing index %s: %w", e.Index, err)
	}
	if len(m) == 0 {
		return fmt.Errorf("engine: existing index %s: no such index", e.Index)
	}
	if e.IDField == "_id" {
		return nil
	}
	for name, ix := range m {
		if !mappingHas(ix.Mappings, strings.Split(e.IDField, ".")) {
			return fmt.Errorf("engine: existing index %s: the mapping of index %s has no field %q (the id field); give the field holding the qrels' doc ids, or \"_id\"", e.Index, name, e.IDField)
		}
	}
	return nil
}

// mappingHas reports whether a mapping ({"properties": {...}}) holds the
// dotted field path.
func mappingHas(mapping json.RawMessage, path []string) bool {
	var m struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(mapping, &m) != nil {
		return false
	}
	sub, ok := m.Properties[path[0]]
	if !ok {
		return false
	}
	if len(path) == 1 {
		return true
	}
	return mappingHas(sub, path[1:])
}
